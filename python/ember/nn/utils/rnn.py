"""Padded and packed variable-length sequences (torch.nn.utils.rnn).

A PackedSequence holds the time steps of a batch of sequences sorted by decreasing
length, step after step: `data` has sum(lengths) rows, `batch_sizes[t]` of them for step
t (how many sequences are longer than t). RNN, LSTM and GRU accept one and stop each
sequence at its own length. Everything here is written with ember ops, so gradients
flow through packing, padding and unpacking.
"""
from collections import namedtuple
from collections.abc import Iterable

from ... import _C
from ..._C import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices",
                                                   "unsorted_indices"])):
    """(data, batch_sizes, sorted_indices, unsorted_indices): made by pack_padded_sequence /
    pack_sequence, not by hand. sorted_indices[i] is the original batch index of the i-th
    longest sequence (None when the batch was already sorted)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should "
                                 "never be created manually. They should be instantiated by functions like "
                                 "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                                 "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        # PackedSequence((data, batch_sizes)): torch's legacy form.
        data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with_data(self, data):
        # batch_sizes stays on the CPU; the index tensors follow the data's device.
        indices = [None if i is None else i.to(data.device) for i in (self.sorted_indices,
                                                                        self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data.dtype == self.data.dtype and data.device == self.data.device:
            return self  # as torch: nothing to convert, the same object
        return self._with_data(data)

    def cpu(self, *args, **kwargs):
        return self.to("cpu")

    def cuda(self, *args, **kwargs):
        return self.to("cuda")

    def double(self):
        return self.to(dtype=_C.float64)

    def float(self):
        return self.to(dtype=_C.float32)

    def half(self):
        return self.to(dtype=_C.float16)

    def long(self):
        return self.to(dtype=_C.int64)

    def int(self):
        return self.to(dtype=_C.int32)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The inverse permutation (None stays None)."""
    if permutation is None:
        return None
    output = _C.empty_like(permutation)
    output.scatter_(0, permutation, _C.arange(0, permutation.numel(), device=permutation.device))
    return output


def _lengths_list(lengths):
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                               f"{lengths.dim()}D {lengths.device.type} tensor")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T, B, *) (or (B, T, *) with batch_first) of sequences of the
    given lengths. enforce_sorted=True requires decreasing lengths; otherwise the batch is
    sorted here and the permutation kept in the result."""
    lengths = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                               "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                               "pack_sequence to sidestep this requirement if you do not need ONNX "
                               "exportability.")
        sorted_indices = None
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])  # stable, as torch's sort
        sorted_indices = _C.tensor(order, dtype=_C.int64, device=input.device)
        lengths = [lengths[i] for i in order]
        input = input.index_select(batch_dim, sorted_indices)
    if len(lengths) != input.size(batch_dim):
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={input.size(batch_dim)})")
    if not lengths or any(v <= 0 for v in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in "
                           "'lengths' that is <= 0")
    if lengths[0] > input.size(1 - batch_dim):
        raise RuntimeError(f"Expected sequence length to be at most {input.size(1 - batch_dim)}, but got "
                           f"{lengths[0]}")
    if batch_first:
        input = input.transpose(0, 1)
    batch_sizes = [sum(1 for v in lengths if v > t) for t in range(lengths[0])]
    data = _C.cat([input[t, :bs] for t, bs in enumerate(batch_sizes)], 0)
    return PackedSequence(data, _C.tensor(batch_sizes, dtype=_C.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded (T, B, *) or (B, T, *), lengths), in the
    batch order the sequences were packed from."""
    batch_sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    max_len = len(batch_sizes)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in "
                             f"input, but got total_length={total_length} and max sequence length being "
                             f"{max_len}")
        max_len = total_length
    data = sequence.data
    batch = batch_sizes[0]
    trailing = tuple(data.shape[1:])
    steps, offset = [], 0
    for bs in batch_sizes:
        step = data[offset:offset + bs]
        if bs < batch:
            step = _C.cat([step, _C.full((batch - bs,) + trailing, padding_value, dtype=data.dtype,
                                          device=data.device)], 0)
        steps.append(step)
        offset += bs
    for _ in range(max_len - len(batch_sizes)):
        steps.append(_C.full((batch,) + trailing, padding_value, dtype=data.dtype, device=data.device))
    padded = _C.stack(steps, 0)
    lengths = [sum(1 for bs in batch_sizes if bs > b) for b in range(batch)]
    lengths = _C.tensor(lengths, dtype=_C.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices.cpu())
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks sequences of shapes (L_i, *) into (max L, B, *) (or (B, max L, *) with
    batch_first), filling with padding_value after (padding_side='right') or before
    ('left') each sequence. The result has the first sequence's dtype."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    first = sequences[0]
    if any(s.dim() == 0 for s in sequences):
        raise RuntimeError("pad_sequence: every sequence must have at least one dimension")
    max_len = max(s.size(0) for s in sequences)
    trailing = tuple(first.shape[1:])
    rows = []
    for s in sequences:
        if tuple(s.shape[1:]) != trailing:
            raise RuntimeError(f"pad_sequence: every sequence must have the trailing shape {list(trailing)} of "
                               f"the first one, got {list(s.shape)}")
        s = s.to(first.dtype)
        pad = max_len - s.size(0)
        if pad:
            fill = _C.full((pad,) + trailing, padding_value, dtype=first.dtype, device=first.device)
            s = _C.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        rows.append(s)
    return _C.stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of pad_sequence's result: padded[:, i][:lengths[i]]."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:length] for seq, length in zip(padded_sequences, _lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences of shapes (L_i, *) (sorted by decreasing length unless
    enforce_sorted=False)."""
    lengths = _C.tensor([v.size(0) for v in sequences], dtype=_C.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence was made of, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
