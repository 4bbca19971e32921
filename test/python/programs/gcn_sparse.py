"""pytorch/examples gcn: a two-layer Graph Convolutional Network whose features and
renormalised adjacency D^-1/2 (A + I) D^-1/2 are sparse COO tensors (sparse_coo_tensor,
to_sparse, torch.spmm), on a generated two-community graph instead of Cora."""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.optim import Adam


class GraphConv(nn.Module):
    def __init__(self, input_dim, output_dim, use_bias=False):
        super(GraphConv, self).__init__()
        self.kernel = nn.Parameter(torch.Tensor(input_dim, output_dim))
        nn.init.xavier_normal_(self.kernel)
        self.bias = None
        if use_bias:
            self.bias = nn.Parameter(torch.Tensor(output_dim))
            nn.init.zeros_(self.bias)

    def forward(self, input_tensor, adj_mat):
        support = torch.mm(input_tensor, self.kernel)
        output = torch.spmm(adj_mat, support)
        if self.bias is not None:
            output = output + self.bias
        return output


class GCN(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, use_bias=True, dropout_p=0.1):
        super(GCN, self).__init__()
        self.gc1 = GraphConv(input_dim, hidden_dim, use_bias=use_bias)
        self.gc2 = GraphConv(hidden_dim, output_dim, use_bias=use_bias)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input_tensor, adj_mat):
        x = self.gc1(input_tensor, adj_mat)
        x = F.relu(x)
        x = self.dropout(x)
        x = self.gc2(x, adj_mat)
        return F.log_softmax(x, dim=1)


def make_graph(V=300, n_feat=100, seed=0):
    rng = np.random.RandomState(seed)
    labels = np.repeat([0, 1], V // 2)
    words = rng.rand(V, n_feat) < np.where(labels[:, None] == 1, 0.08, 0.04)
    same = labels[:, None] == labels[None, :]
    edges = np.argwhere(np.triu(rng.rand(V, V) < np.where(same, 0.03, 0.003), 1)).astype(np.int32)
    edges = np.concatenate([edges, edges[:, ::-1]])
    features = torch.FloatTensor(words.astype(np.int32))
    scale_vector = 1 / torch.sum(features, dim=1)
    scale_vector[scale_vector == float('inf')] = 0
    features = torch.diag(scale_vector).to_sparse() @ features
    E = edges.shape[0]
    adj_mat = torch.sparse_coo_tensor(edges.T, torch.ones(E), (V, V), dtype=torch.int64)
    adj_mat = torch.eye(V) + adj_mat
    degree_mat = torch.sqrt(1 / torch.sum(adj_mat, dim=1))
    degree_mat[degree_mat == float('inf')] = 0
    degree_mat = torch.diag(degree_mat).to_sparse()
    adj_mat = degree_mat @ adj_mat @ degree_mat
    return features.to_sparse(), torch.LongTensor(labels), adj_mat.to_sparse()


def test(model, criterion, input, target, mask):
    model.eval()
    with torch.no_grad():
        output = model(*input)
        output, target = output[mask], target[mask]
        loss = criterion(output, target)
        acc = (output.argmax(dim=1) == target).float().sum() / len(target)
    return loss.item(), acc.item()


if __name__ == '__main__':
    torch.manual_seed(42)
    features, labels, adj_mat = make_graph()
    idx = torch.randperm(len(labels))
    idx_test, idx_val, idx_train = idx[:100], idx[100:150], idx[150:]
    gcn = GCN(features.shape[1], 16, labels.max().item() + 1, True, 0.5)
    optimizer = Adam(gcn.parameters(), lr=0.01, weight_decay=5e-4)
    criterion = nn.NLLLoss()
    for epoch in range(100):
        gcn.train()
        optimizer.zero_grad()
        output = gcn(features, adj_mat)
        loss = criterion(output[idx_train], labels[idx_train])
        loss.backward()
        optimizer.step()
        if (epoch + 1) % 20 == 0:
            loss_val, acc_val = test(gcn, criterion, (features, adj_mat), labels, idx_val)
            print(f'Epoch: {epoch + 1:04d} loss_train: {loss.item():.4f} loss_val: {loss_val:.4f} acc_val: {acc_val:.4f}')
    loss_test, acc_test = test(gcn, criterion, (features, adj_mat), labels, idx_test)
    print(f'Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}')
    assert acc_test > 0.8, acc_test
    print("OK")
