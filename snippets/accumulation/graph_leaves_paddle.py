import paddle

a = paddle.to_tensor(2.0, stop_gradient=False)
b = paddle.to_tensor(4.0)
c = a + b  # recorded: one operand (a) is already part of the graph
with paddle.no_grad():
    d = a * 2  # not recorded: recording is off
e = a > 0  # not recorded: a comparison has no gradient

for name, tensor in {"a": a, "b": b, "c": c, "d": d, "e": e}.items():
    node = tensor.grad_fn.name() if tensor.grad_fn is not None else None
    print(f"{name}: stop_gradient={tensor.stop_gradient}, is_leaf={tensor.is_leaf}, grad_fn={node}")
