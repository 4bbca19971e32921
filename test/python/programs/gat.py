"""pytorch/examples gat: a Graph Attention Network (dense adjacency, multi-head attention
with LeakyReLU scores masked by the graph) classifying the nodes of a generated
two-community graph, with early stopping on the validation loss."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class GraphAttentionLayer(nn.Module):
    def __init__(self, in_features, out_features, n_heads, concat=False, dropout=0.4, leaky_relu_slope=0.2):
        super(GraphAttentionLayer, self).__init__()
        self.n_heads = n_heads
        self.concat = concat
        self.dropout = dropout
        if concat:
            self.out_features = out_features
            assert out_features % n_heads == 0
            self.n_hidden = out_features // n_heads
        else:
            self.n_hidden = out_features
        self.W = nn.Parameter(torch.empty(size=(in_features, self.n_hidden * n_heads)))
        self.a = nn.Parameter(torch.empty(size=(n_heads, 2 * self.n_hidden, 1)))
        self.leakyrelu = nn.LeakyReLU(leaky_relu_slope)
        self.softmax = nn.Softmax(dim=1)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_normal_(self.W)
        nn.init.xavier_normal_(self.a)

    def _get_attention_scores(self, h_transformed: torch.Tensor):
        source_scores = torch.matmul(h_transformed, self.a[:, :self.n_hidden, :])
        target_scores = torch.matmul(h_transformed, self.a[:, self.n_hidden:, :])
        # broadcast add: (n_heads, n_nodes, 1) + (n_heads, 1, n_nodes)
        e = source_scores + target_scores.mT
        return self.leakyrelu(e)

    def forward(self, h: torch.Tensor, adj_mat: torch.Tensor):
        n_nodes = h.shape[0]
        h_transformed = torch.mm(h, self.W)
        h_transformed = F.dropout(h_transformed, self.dropout, training=self.training)
        h_transformed = h_transformed.view(n_nodes, self.n_heads, self.n_hidden).permute(1, 0, 2)
        e = self._get_attention_scores(h_transformed)
        connectivity_mask = -9e16 * torch.ones_like(e)
        e = torch.where(adj_mat > 0, e, connectivity_mask)  # masked attention scores
        attention = F.softmax(e, dim=-1)
        attention = F.dropout(attention, self.dropout, training=self.training)
        h_prime = torch.matmul(attention, h_transformed)
        if self.concat:
            h_prime = h_prime.permute(1, 0, 2).contiguous().view(n_nodes, self.out_features)
        else:
            h_prime = h_prime.mean(dim=0)
        return h_prime


class GAT(nn.Module):
    def __init__(self, in_features, n_hidden, n_heads, num_classes, concat=False, dropout=0.4, leaky_relu_slope=0.2):
        super(GAT, self).__init__()
        self.gat1 = GraphAttentionLayer(in_features=in_features, out_features=n_hidden, n_heads=n_heads,
                                        concat=concat, dropout=dropout, leaky_relu_slope=leaky_relu_slope)
        self.gat2 = GraphAttentionLayer(in_features=n_hidden, out_features=num_classes, n_heads=1,
                                        concat=False, dropout=dropout, leaky_relu_slope=leaky_relu_slope)

    def forward(self, input_tensor: torch.Tensor, adj_mat: torch.Tensor):
        x = self.gat1(input_tensor, adj_mat)
        x = F.elu(x)
        x = self.gat2(x, adj_mat)
        return F.log_softmax(x, dim=1)


def make_graph(n=200, n_feat=50, p_in=0.08, p_out=0.005):
    labels = (torch.arange(n) >= n // 2).long()
    same = labels[:, None] == labels[None, :]
    prob = torch.where(same, torch.tensor(p_in), torch.tensor(p_out))
    adj = (torch.rand(n, n) < prob).float().triu(1)
    adj = adj + adj.T + torch.eye(n)  # undirected, with self loops
    means = torch.randn(2, n_feat)
    features = means[labels] + torch.randn(n, n_feat) * 2.0
    features = features / features.norm(dim=1, keepdim=True)
    return features, labels, adj


def train_iter(epoch, model, optimizer, criterion, input, target, mask_train, mask_val, print_every=20):
    model.train()
    optimizer.zero_grad()
    output = model(*input)
    loss = criterion(output[mask_train], target[mask_train])
    loss.backward()
    optimizer.step()
    loss_train, acc_train = test(model, criterion, input, target, mask_train)
    loss_val, acc_val = test(model, criterion, input, target, mask_val)
    if epoch % print_every == 0:
        print(f'Epoch: {epoch:04d} ({epoch / 100:.2f}%) | loss_train: {loss_train.item():.4f} | '
              f'loss_val: {loss_val.item():.4f} | acc_train: {acc_train:.4f} | acc_val: {acc_val:.4f}')
    return loss_val


def test(model, criterion, input, target, mask):
    model.eval()
    with torch.no_grad():
        output = model(*input)
        output, target = output[mask], target[mask]
        loss = criterion(output, target)
        acc = (output.argmax(dim=1) == target).float().sum() / len(target)
    return loss, acc.item()


if __name__ == '__main__':
    torch.manual_seed(13)
    features, labels, adj_mat = make_graph()
    perm = torch.randperm(labels.shape[0])
    idx_train, idx_val, idx_test = perm[:60], perm[60:100], perm[100:]
    gat_net = GAT(in_features=features.shape[1], n_hidden=64, n_heads=8, num_classes=int(labels.max()) + 1,
                  concat=False, dropout=0.6, leaky_relu_slope=0.2)
    optimizer = torch.optim.Adam(gat_net.parameters(), lr=0.005, weight_decay=5e-4)
    criterion = nn.NLLLoss()
    best, bad = float('inf'), 0
    for epoch in range(200):
        loss_val = train_iter(epoch + 1, gat_net, optimizer, criterion, (features, adj_mat), labels,
                              idx_train, idx_val)
        if loss_val.item() < best:
            best, bad = loss_val.item(), 0
        else:
            bad += 1
            if bad == 30:
                print('early stopping at epoch', epoch + 1)
                break
    loss_test, acc_test = test(gat_net, criterion, (features, adj_mat), labels, idx_test)
    print(f'Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}')
    assert acc_test > 0.75, acc_test
    print("OK")
