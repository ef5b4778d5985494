import torch

model = torch.nn.Linear(1, 1, bias=False)
with torch.no_grad():
    model.weight.fill_(1.0)

x = torch.tensor([4.0])
y = 2 * x  # the target: no operand requires grad, so nothing is recorded
y_hat = model(x)
loss = ((y - y_hat) ** 2).mean()


def chain(node):
    """Follow the first recorded input of each node back to the leaf."""
    names = []
    while node is not None:
        names.append(node.name())
        inputs = [next_node for next_node, _ in node.next_functions if next_node is not None]
        node = inputs[0] if inputs else None
    return names


print(" -> ".join(chain(loss.grad_fn)))
print("y.grad_fn:", y.grad_fn)

with_bias = torch.nn.Linear(1, 1)  # the default: with a bias
y_hat_with_bias = with_bias(x)
print("with a bias:", " -> ".join(chain(y_hat_with_bias.grad_fn)))
