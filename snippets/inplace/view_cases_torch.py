import torch

# Messages of the errors autograd raises for these writes; anything else is re-raised.
REFUSALS = ("returns multiple views", "A view was created in no_grad mode")
messages = {}


def check(write, reference):
    """Run a write through a view; compare the loss and gradient with the out-of-place reference."""
    weight = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    try:
        loss = write(weight * 1)
    except RuntimeError as error:
        if not any(text in str(error) for text in REFUSALS):
            raise
        messages[write.__name__] = str(error)
        return "error"
    loss.backward()
    gradient = weight.grad
    weight.grad = None
    expected_loss = reference(weight)
    expected_loss.backward()
    if not torch.allclose(loss, expected_loss):
        return "the write did not reach the base"
    return (
        "correct gradient" if torch.allclose(gradient, weight.grad) else "wrong gradient, no error"
    )


def view_of_a_view(hidden):
    hidden[1:][:1].exp_()
    return hidden.sum()


def through_reshape(hidden):
    hidden.reshape(3, 1).exp_()  # reshape without a copy returns a view
    return hidden.sum()


def view_written_view_read(hidden):
    head = hidden[:2]
    head.exp_()
    return head.sum()  # the loss reads only the view that was written


def base_written_view_read(hidden):
    head = hidden[:2]
    hidden.exp_()
    return head.sum()


def unbind_output(hidden):
    first, second, third = hidden.unbind()
    first.exp_()
    return hidden.sum()


def split_output(hidden):
    head, tail = hidden.split([2, 1])
    head.exp_()
    return hidden.sum()


def view_made_under_no_grad(hidden):
    with torch.no_grad():
        head = hidden[:2]
    head.exp_()  # written with grad mode on
    return hidden.sum()


outcome = {
    "view of a view": check(
        view_of_a_view, lambda w: torch.cat([w[:1], w[1:2].exp(), w[2:]]).sum()
    ),
    "through reshape": check(through_reshape, lambda w: w.exp().sum()),
    "view written, view read": check(view_written_view_read, lambda w: w[:2].exp().sum()),
    "base written, view read": check(base_written_view_read, lambda w: w[:2].exp().sum()),
    "output of unbind": check(unbind_output, lambda w: torch.cat([w[:1].exp(), w[1:]]).sum()),
    "output of split": check(split_output, lambda w: torch.cat([w[:2].exp(), w[2:]]).sum()),
    "view made under no_grad": check(
        view_made_under_no_grad, lambda w: torch.cat([w[:2].exp(), w[2:]]).sum()
    ),
}
for case, result in outcome.items():
    print(f"{case:24} {result}")
for function, message in messages.items():
    print(f"{function}: {message}")
