"""A character-level name classifier and generator on variable-length batches:
pad_sequence, pack_padded_sequence(enforce_sorted=False) through an LSTM,
pad_packed_sequence, CrossEntropyLoss(ignore_index=PAD), clip_grad_norm_, sampling."""
import random
import string
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

random.seed(0)
torch.manual_seed(0)
PAD, BOS, EOS = 0, 1, 2
chars = string.ascii_lowercase
stoi = {c: i + 3 for i, c in enumerate(chars)}
itos = {i: c for c, i in stoi.items()}
vocab_size = len(chars) + 3


def make_word():
    """Names of a toy language: alternating consonants and vowels, 3 to 9 letters."""
    vowels, consonants = "aeiou", "bdfgklmnprstvz"
    n = random.randint(3, 9)
    return "".join(random.choice(consonants if i % 2 == 0 else vowels) for i in range(n))


words = [make_word() for _ in range(600)]
encoded = [torch.tensor([BOS] + [stoi[c] for c in w] + [EOS]) for w in words]


class CharLM(nn.Module):
    def __init__(self, vocab_size, emb=24, hidden=64, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, emb, padding_idx=PAD)
        self.rnn = nn.LSTM(emb, hidden, num_layers=layers, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, vocab_size)

    def forward(self, x, lengths, state=None):
        packed = pack_padded_sequence(self.embed(x), lengths, batch_first=True, enforce_sorted=False)
        out, state = self.rnn(packed, state)
        out, out_lengths = pad_packed_sequence(out, batch_first=True, padding_value=0.0,
                                               total_length=x.size(1))
        assert torch.equal(out_lengths, lengths)
        return self.head(out), state


def batches(seqs, batch_size):
    order = list(range(len(seqs)))
    random.shuffle(order)
    for i in range(0, len(order), batch_size):
        chunk = [seqs[j] for j in order[i:i + batch_size]]
        lengths = torch.tensor([len(s) - 1 for s in chunk])
        inputs = pad_sequence([s[:-1] for s in chunk], batch_first=True, padding_value=PAD)
        targets = pad_sequence([s[1:] for s in chunk], batch_first=True, padding_value=PAD)
        yield inputs, targets, lengths


model = CharLM(vocab_size)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
criterion = nn.CrossEntropyLoss(ignore_index=PAD)
for epoch in range(8):
    model.train()
    total, count = 0.0, 0
    for inputs, targets, lengths in batches(encoded, 32):
        logits, _ = model(inputs, lengths)
        loss = criterion(logits.reshape(-1, vocab_size), targets.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        total += loss.item() * lengths.sum().item()
        count += lengths.sum().item()
    print(f"epoch {epoch} loss per char {total / count:.4f}")
assert total / count < 2.6, total / count  # uniform over 29 symbols is 3.37


@torch.no_grad()
def sample(model, max_len=12, temperature=0.8):
    model.eval()
    x, state, out = torch.tensor([[BOS]]), None, []
    for _ in range(max_len):
        logits, state = model(x, torch.tensor([1]), state)
        probs = F.softmax(logits[0, -1] / temperature, dim=-1)
        ix = torch.multinomial(probs, num_samples=1).item()
        if ix == EOS or ix == PAD:
            break
        out.append(itos.get(ix, "?"))
        x = torch.tensor([[ix]])
    return "".join(out)


names = [sample(model) for _ in range(8)]
print(names)
vowel_alternation = sum(all((c in "aeiou") == (i % 2 == 1) for i, c in enumerate(n)) for n in names)
print("names that follow the pattern:", vowel_alternation, "of", len(names))
print("OK")
