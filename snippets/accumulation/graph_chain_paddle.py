import paddle

model = paddle.nn.Linear(1, 1, bias_attr=False)
with paddle.no_grad():
    model.weight.fill_(1.0)

x = paddle.to_tensor([4.0])
y = 2 * x  # the target: every operand has stop_gradient=True, so nothing is recorded
y_hat = model(x)
loss = ((y - y_hat) ** 2).mean()


def chain(node):
    """Follow the first recorded input of each node back to the leaf."""
    names = []
    while node is not None:
        names.append(node.name())
        inputs = [next_node for next_node in node.next_functions if next_node is not None]
        node = inputs[0] if inputs else None
    return names


print(" -> ".join(chain(loss.grad_fn)))
print("y.grad_fn:", y.grad_fn)

with_bias = paddle.nn.Linear(1, 1)  # the default: with a bias
y_hat_with_bias = with_bias(x)
print("with a bias:", " -> ".join(chain(y_hat_with_bias.grad_fn)))
