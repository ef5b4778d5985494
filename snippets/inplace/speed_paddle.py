import paddle

# Paddle has no public thread setting; `import paddle` sets OMP_NUM_THREADS=1 if unset.
N = 1 << 20  # 2**20 float32 values: 4 MiB per tensor
signal = paddle.rand([N])
buffer = paddle.empty([N])  # allocated once, reused by every call of into_buffer
small_signal = paddle.rand([1 << 14])  # 64 KiB
large_signal = paddle.rand([1 << 24])  # 64 MiB


@paddle.no_grad()
def out_of_place(x):
    return paddle.sin(paddle.exp(x))  # allocates two new results per call


@paddle.no_grad()
def into_buffer(x, out):
    return paddle.sin(paddle.exp(x, out=out), out=out)  # allocates nothing, two buffers


@paddle.no_grad()
def in_place(x):
    return x.exp_().sin_()  # allocates nothing, one buffer


copy = signal.clone()
print(
    f"same result with out=: {paddle.equal_all(out_of_place(signal), into_buffer(signal, buffer)).item()}"
)
print(f"same result in place:  {paddle.equal_all(out_of_place(signal), in_place(copy)).item()}")
