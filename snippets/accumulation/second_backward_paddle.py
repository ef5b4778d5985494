import paddle

weight = paddle.to_tensor(1.0, stop_gradient=False)
loss = (3 * weight) ** 2
loss.backward()
print("grad after the first backward:", weight.grad.item())
loss.backward()  # the graph's saved tensors were freed by the first call
