import torch

N = 1 << 20  # 2**20 float32 values: 4 MiB per tensor
inputs = torch.rand(N, requires_grad=True)


def features_out_of_place(x):
    return x.sin().sin().sin()


def features_in_place(x):
    return x.clone().sin_().sin_().sin_()


# Inference: an input that does not require grad records no graph.
# Training: the same functions on `inputs` record what backward needs.
features_out_of_place(inputs).sum().backward()
reference = inputs.grad.clone()
inputs.grad = None
features_in_place(inputs).sum().backward()
print(f"same gradient: {torch.allclose(inputs.grad, reference)}")
