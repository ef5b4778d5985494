import paddle

weight = paddle.to_tensor(1.0, stop_gradient=False)
loss = (3 * weight) ** 2
loss.backward(retain_graph=True)  # keep the saved tensors for another pass
first = weight.grad.item()
loss.backward()
second = weight.grad.item()
print(f"grad after the first backward: {first}, after the second: {second}")
