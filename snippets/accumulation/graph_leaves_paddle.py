import paddle

a = paddle.to_tensor(2.0, stop_gradient=False)
b = paddle.to_tensor(4.0)
c = a + b  # recorded: one operand (a) is already part of the graph

for name, tensor in {"a": a, "b": b, "c": c}.items():
    node = tensor.grad_fn.name() if tensor.grad_fn is not None else None
    print(f"{name}: stop_gradient={tensor.stop_gradient}, is_leaf={tensor.is_leaf}, grad_fn={node}")
