import paddle

weight = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
(weight * 3).sum().backward()  # micro-batch 1
kept = weight.grad  # a reference to the gradient tensor
kept_copy = weight.grad.clone()  # a copy
(weight * 3).sum().backward()  # micro-batch 2 adds into the same tensor
print(f"kept:      {kept.tolist()}")
print(f"kept_copy: {kept_copy.tolist()}")
print(f"weight.grad: {weight.grad.tolist()}")
print(f"same memory as kept: {kept.data_ptr() == weight.grad.data_ptr()}")
