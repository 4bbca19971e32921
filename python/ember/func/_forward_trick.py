"""Forward-mode products J v through two reverse passes (the double-backward trick).

ember's autograd is reverse mode only. With u a new zero leaf shaped like each output,
g(u) = J^T u is linear in u, so the gradient of <g(u), v> with respect to u is J v.
ember.autograd.functional.jvp computes it the same way; here it is split so that one
forward run serves many tangents (linearize, jacfwd).
"""
from .. import _C
from ..autograd import grad as _autograd_grad


class ForwardProducts:
    """J v for the outputs of one function run (outputs and inputs in a GradLevel)."""

    def __init__(self, level, flat_outputs, inputs):
        self.outputs = flat_outputs
        self.inputs = inputs
        self.level = level
        self.us = [level.new_leaf(o) if o.requires_grad else None for o in flat_outputs]
        pairs = [(o, u) for o, u in zip(flat_outputs, self.us) if u is not None]
        if pairs and inputs:
            self.gs = list(_autograd_grad(tuple(o for o, _ in pairs), tuple(inputs),
                                          tuple(u for _, u in pairs), retain_graph=True,
                                          create_graph=True, allow_unused=True))
        else:
            self.gs = [None] * len(inputs)

    def push(self, tangents, create_graph):
        """[J v] per output for tangents v (one per input, or None for a zero tangent)."""
        pairs = [(g, t.to(g.dtype)) for g, t in zip(self.gs, tangents)
                 if t is not None and g is not None and g.requires_grad]
        live_us = [u for u in self.us if u is not None]
        if pairs and live_us:
            res = _autograd_grad(tuple(g for g, _ in pairs), tuple(live_us), tuple(t for _, t in pairs),
                                 retain_graph=True, create_graph=create_graph, allow_unused=True)
            by_u = iter(res)
            res = [next(by_u) if u is not None else None for u in self.us]
        else:
            res = [None] * len(self.outputs)
        return [_C.zeros_like(o) if r is None else r for r, o in zip(res, self.outputs)]

    def tangents_reach_outside(self, tangents):
        return self.level.graph_reaches_outside([t for t in tangents if t is not None])
