import torch

N = 1 << 20  # 2**20 float32 values: 4 MiB per tensor
inputs = torch.rand(N, requires_grad=True)


# Both chains start from the same new tensor, x * 2, that the function owns:
# the in-place chain can overwrite it without a clone.
def features_out_of_place(x):
    return (x * 2).sin().sin().sin()


def features_in_place(x):
    return (x * 2).sin_().sin_().sin_()


# Inference: an input that does not require grad records no graph.
# Training: the same functions on `inputs` record what backward needs.
features_out_of_place(inputs).sum().backward()
reference = inputs.grad.clone()
inputs.grad = None
features_in_place(inputs).sum().backward()
print(f"same gradient: {torch.allclose(inputs.grad, reference)}")
