import paddle

weight = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
optimizer = paddle.optimizer.SGD(learning_rate=0.25, parameters=[weight])
expected = (3 * weight**2).tolist()  # d/dw of sum(w**3) at the forward-pass weight

first_loss = (weight * weight).sum()
second_loss = (weight * weight * weight).sum()  # saves weight for its backward
first_loss.backward()
optimizer.step()  # updates weight in place before second_loss.backward()
optimizer.clear_grad()

try:
    second_loss.backward()
    raised = False
    print(f"gradient {weight.grad.tolist()}, expected {expected}")
except RuntimeError as error:
    if "modified by an inplace operation" not in str(error):
        raise
    raised = True
    print(f"RuntimeError: {error}")
