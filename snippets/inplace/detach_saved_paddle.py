import paddle

x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
hidden = x.exp()
loss = (hidden * hidden).sum()  # multiply saves hidden
hidden.detach_()  # detaches hidden itself, in place, after multiply saved it
print(f"hidden.stop_gradient: {hidden.stop_gradient}, hidden.grad_fn: {hidden.grad_fn}")
try:
    loss.backward()
    correct = paddle.allclose(x.grad, 2 * paddle.exp(2 * x.detach())).item()  # loss is exp(2x)
    outcome = "correct gradient, no error" if correct else "wrong gradient, no error"
except RuntimeError as error:
    outcome = f"RuntimeError at backward: {str(error).split('. ')[0]}"
print(outcome)

# The same on a leaf: backward runs, and the leaf gets no gradient
leaf = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
leaf_loss = (leaf * leaf).sum()  # multiply saves the leaf
leaf.detach_()
leaf_loss.backward()
print(f"leaf detached in place, after backward: leaf.grad is {leaf.grad}")
