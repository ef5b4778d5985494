import paddle

model = paddle.nn.Linear(2, 1)
optimizer = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())


def describe(grad):
    return "None" if grad is None else f"zeros {list(grad.shape)}" if not grad.any() else "values"


before_any_backward = describe(model.weight.grad)


def grad_left_by(clear):
    model(paddle.ones([1, 2])).sum().backward()
    clear()
    return describe(model.weight.grad)


left_behind = {
    "optimizer.clear_grad()": grad_left_by(optimizer.clear_grad),
    "optimizer.clear_grad(set_to_zero=False)": grad_left_by(
        lambda: optimizer.clear_grad(set_to_zero=False)
    ),
    "optimizer.zero_grad()": grad_left_by(optimizer.zero_grad),
    "model.clear_gradients()": grad_left_by(model.clear_gradients),
}
print(f"{'before any backward':40} -> weight.grad is {before_any_backward}")
for call, grad in left_behind.items():
    print(f"{call:40} -> weight.grad is {grad}")
