import paddle

weight = paddle.to_tensor([0.5, 1.0, 2.0], stop_gradient=False)

hidden = weight * 1
hidden.sin_()  # backward of sin needs the input that sin_ overwrites
hidden.sum().backward()
sin_error = (weight.grad - paddle.cos(weight)).abs().max().item()

weight.clear_grad()
hidden = weight * 1
hidden.exp_()  # backward of exp needs the output, which exp_ keeps
hidden.sum().backward()
exp_error = (weight.grad - paddle.exp(weight)).abs().max().item()

print(f"sin_: largest gradient error {sin_error}")
print(f"exp_: largest gradient error {exp_error}")
