import paddle

paddle.seed(0)
batch, steps, features = 2, 4, 3
inputs = paddle.randn([batch, steps, features])
w_hh = paddle.randn([features, features])
w_hh.stop_gradient = False

# A recurrent layer that writes each step's state into one preallocated tensor.
states = paddle.zeros([batch, steps, features])
for t in range(1, steps):
    # The matmul saves states[:, t - 1] for the gradient of w_hh; writing states[:, t]
    # increments the version counter of the whole tensor, that saved column included.
    states[:, t] = paddle.tanh(states[:, t - 1] @ w_hh + inputs[:, t])
try:
    states.sum().backward()
    message = "no error"
except RuntimeError as error:
    if "modified by an inplace operation" not in str(error):
        raise
    message = f"RuntimeError: {error}"
print(message)
