import torch

weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
head = weight[:2]  # a view of the leaf
try:
    head.add_(1.0)
    raised = False
except RuntimeError as error:
    if "a view of a leaf Variable that requires grad" not in str(error):
        raise
    raised = True
    print(f"RuntimeError: {error}")

print(f"weight: {weight.tolist()}, version {weight._version}")
