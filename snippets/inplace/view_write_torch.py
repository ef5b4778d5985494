import torch

weight = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)

# In place, through a view: hidden[:2] is a slice that shares hidden's storage.
hidden = weight * 1
hidden[:2].exp_()
in_place_values = hidden.tolist()
hidden.sum().backward()
in_place_gradient = weight.grad.tolist()

# The same computation out of place.
weight.grad = None
hidden = torch.cat([weight[:2].exp(), weight[2:]])
hidden.sum().backward()
out_of_place_gradient = weight.grad.tolist()

print(f"values, in place:       {in_place_values}")
print(f"values, out of place:   {hidden.tolist()}")
print(f"gradient, in place:     {in_place_gradient}")
print(f"gradient, out of place: {out_of_place_gradient}")
