import torch

weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)


def made_under(mode):
    with mode():
        return weight * 2  # a result computed without recording the graph


def write_in_place(tensor):
    tensor.add_(1.0)


def read_version(tensor):
    return tensor._version


def save_for_backward(tensor):
    (weight * tensor).sum().backward()  # multiplication saves tensor for backward


def afterwards(mode):
    """What ordinary grad-mode code can still do with a tensor made under `mode`."""
    results = {}
    for action in (write_in_place, read_version, save_for_backward):
        try:
            action(made_under(mode))
            results[action.__name__] = "allowed"
        except RuntimeError as error:
            if "inference tensor" not in str(error).lower():
                raise
            results[action.__name__] = str(error).split(".")[0]
    return results


outcome = {"no_grad": afterwards(torch.no_grad), "inference_mode": afterwards(torch.inference_mode)}
is_inference = {
    "no_grad": made_under(torch.no_grad).is_inference(),
    "inference_mode": made_under(torch.inference_mode).is_inference(),
}
for mode, results in outcome.items():
    print(f"made under torch.{mode} (inference tensor: {is_inference[mode]})")
    for action, result in results.items():
        print(f"  {action:18} {result}")
