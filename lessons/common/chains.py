"""The longest chain of matrix products a computation must run one after another, read off its autograd graph: what
"sequential" costs, counted rather than timed, so no load on the machine can move it."""

from __future__ import annotations

import torch

_MATRIX_PRODUCTS = {"MmBackward0", "AddmmBackward0", "BmmBackward0"}  # autograd's nodes for a matrix product


def matrix_product_chain(output: torch.Tensor) -> int:
    """The longest chain of matrix products in ``output``'s autograd graph, each needing the one before: how many
    products must run one after another, whatever the number of cores. Walks the graph without recursion."""
    order, seen, stack = [], set(), [(output.grad_fn, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)  # every input of ``node`` is already in ``order``
        elif node is not None and node not in seen:
            seen.add(node)
            stack.append((node, True))
            stack.extend((n, False) for n, _ in node.next_functions if n is not None and n not in seen)
    depth: dict = {}
    for node in order:
        below = max((depth[n] for n, _ in node.next_functions if n is not None), default=0)
        depth[node] = below + (type(node).__name__ in _MATRIX_PRODUCTS)
    return depth[output.grad_fn]
