import torch
import torch.nn.functional as F

torch.manual_seed(0)
inputs, targets = torch.randn(8, 4), torch.randn(8, 1)


def training_step(model, retain_graph=False, calls_backward=True):
    """A user's step function; some of them call backward() themselves."""
    loss = F.mse_loss(model(inputs), targets)
    if calls_backward:
        loss.backward(retain_graph=retain_graph)
    return loss


def gradient(step_then_loop):
    """The weight's gradient after one training step, or the error."""
    torch.manual_seed(1)
    model = torch.nn.Linear(4, 1)
    try:
        step_then_loop(model)
    except RuntimeError as error:
        return f"RuntimeError: {str(error).split(' (')[0]}"
    return model.weight.grad.clone()


def both_call_backward(model):
    training_step(model).backward()  # the loop calls backward() on the returned loss too


def step_retains_graph(model):
    training_step(model, retain_graph=True).backward()


def loop_only(model):
    training_step(model, calls_backward=False).backward()


expected = gradient(loop_only)
outcome = {}
for name, run in {
    "step and loop both call backward()": both_call_backward,
    "step calls backward(retain_graph=True)": step_retains_graph,
    "only the loop calls backward()": loop_only,
}.items():
    result = gradient(run)
    if isinstance(result, str):
        outcome[name] = result
    else:
        outcome[name] = f"no error; gradient x {(result / expected).mean().item():g}"
for name, result in outcome.items():
    print(f"{name:40} {result}")
