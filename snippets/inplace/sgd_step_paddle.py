import paddle

weight = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
loss = (weight * weight).sum()
loss.backward()

# An SGD step by hand: update the leaf in place, outside the graph.
with paddle.no_grad():
    weight.subtract_(0.25 * weight.grad)
weight.clear_grad()

print(f"weight after the step: {weight.tolist()}")
print(f"still a leaf that requires grad: {weight.is_leaf and not weight.stop_gradient}")
print(f"version: {weight.inplace_version}")
