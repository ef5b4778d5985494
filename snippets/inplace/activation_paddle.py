import paddle

N = 1 << 20  # 2**20 float32 values: 4 MiB per tensor
signal = paddle.rand([N])


@paddle.no_grad()
def activate_out_of_place(signal):
    return paddle.sin(paddle.exp(signal))  # each op allocates a new tensor


@paddle.no_grad()
def activate_in_place(signal):
    return signal.exp_().sin_()  # the same ops, writing into signal


print(f"one tensor: {signal.numel().item() * signal.element_size() / 2**20:.0f} MiB")
print(
    f"same result: {paddle.equal_all(activate_out_of_place(signal), activate_in_place(signal.clone())).item()}"
)
