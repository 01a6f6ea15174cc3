"""The longest chain of matrix products, read off an autograd graph."""

import torch

from lessons.common.chains import matrix_product_chain


def test_products_side_by_side_count_once_and_products_in_a_row_add_up():
    x, W = torch.randn(2, 3, requires_grad=True), torch.randn(3, 3)
    assert matrix_product_chain(x @ W + x @ W.T) == 1
    assert matrix_product_chain(((x @ W) @ W) @ W) == 3
    assert matrix_product_chain(torch.tanh(x @ W).exp() @ W) == 2
    state = x  # the first state needs a gradient too, so the first step's product counts
    for _ in range(5):  # an RNN's loop: each product needs the state the one before made
        state = torch.tanh(x + state @ W)
    assert matrix_product_chain(state) == 5
