import re

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
noise = torch.randn(8, 2)
real = torch.randn(8, 4) + 2.0
OPTIMIZERS = {
    "SGD": lambda parameters: torch.optim.SGD(parameters, lr=0.1),
    "SGD, momentum 0.9": lambda parameters: torch.optim.SGD(parameters, lr=0.1, momentum=0.9),
    "Adam": lambda parameters: torch.optim.Adam(parameters, lr=0.01),
    "AdamW": lambda parameters: torch.optim.AdamW(parameters, lr=0.01),
}


def bce(logits, target):
    return F.binary_cross_entropy_with_logits(logits, torch.full_like(logits, target))


def textbook(generator, discriminator, opt_g, opt_d):
    fake = generator(noise)
    opt_d.zero_grad()  # clear each model right before its own backward
    d_loss = bce(discriminator(real), 1.0) + bce(discriminator(fake.detach()), 0.0)
    d_loss.backward()  # detach: the discriminator's loss leaves the generator alone
    opt_d.step()
    opt_g.zero_grad()
    g_loss = bce(discriminator(fake), 1.0)  # a fresh forward through the updated discriminator
    g_loss.backward()
    opt_g.step()


def no_detach(generator, discriminator, opt_g, opt_d):
    fake = generator(noise)
    opt_d.zero_grad()
    d_loss = bce(discriminator(real), 1.0) + bce(discriminator(fake), 0.0)
    d_loss.backward()  # also runs through the generator and frees its graph
    opt_d.step()
    opt_g.zero_grad()
    bce(discriminator(fake), 1.0).backward()
    opt_g.step()


def no_detach_retain_graph(generator, discriminator, opt_g, opt_d):
    fake = generator(noise)
    opt_d.zero_grad()
    d_loss = bce(discriminator(real), 1.0) + bce(discriminator(fake), 0.0)
    d_loss.backward(retain_graph=True)  # leaves d_loss's gradient in the generator
    opt_d.step()
    bce(discriminator(fake), 1.0).backward()  # adds g_loss's gradient to it
    opt_g.step()
    opt_g.zero_grad()


def no_detach_cleared_before(generator, discriminator, opt_g, opt_d):
    fake = generator(noise)
    opt_d.zero_grad()
    d_loss = bce(discriminator(real), 1.0) + bce(discriminator(fake), 0.0)
    d_loss.backward(retain_graph=True)
    opt_d.step()
    opt_g.zero_grad()  # drops what d_loss left in the generator
    bce(discriminator(fake), 1.0).backward()
    opt_g.step()


def step_between_backwards(generator, discriminator, opt_g, opt_d):
    fake = generator(noise)
    opt_d.zero_grad()
    fake_logits = discriminator(fake)
    d_loss = bce(discriminator(real), 1.0) + bce(fake_logits, 0.0)
    g_loss = bce(fake_logits, 1.0)  # from the same forward, before the discriminator's step
    d_loss.backward(retain_graph=True)
    opt_d.step()  # writes into the weights that g_loss's graph saved
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()


def cleared_after_step(generator, discriminator, opt_g, opt_d):
    fake = generator(noise)
    d_loss = bce(discriminator(real), 1.0) + bce(discriminator(fake.detach()), 0.0)
    d_loss.backward()
    opt_d.step()
    opt_d.zero_grad()  # too early: g_loss's backward below fills it again
    g_loss = bce(discriminator(fake), 1.0)
    g_loss.backward()
    opt_g.step()
    opt_g.zero_grad()


def train(loop, make_optimizer, iterations=2):
    """Run `loop` from the same start; the parameters of both models after each iteration."""
    torch.manual_seed(0)
    generator = nn.Linear(2, 4)
    discriminator = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    opt_g = make_optimizer(generator.parameters())
    opt_d = make_optimizer(discriminator.parameters())
    history = []
    for _ in range(iterations):
        loop(generator, discriminator, opt_g, opt_d)
        history.append(
            {
                "generator": [p.detach().clone() for p in generator.parameters()],
                "discriminator": [p.detach().clone() for p in discriminator.parameters()],
            }
        )
    return history


def compare(loop, make_optimizer, reference):
    """Where `loop` first leaves the textbook loop: the iteration and the models, or the error."""
    try:
        history = train(loop, make_optimizer)
    except RuntimeError as error:
        return f"RuntimeError: {re.split(r'[:(]', str(error))[0].strip()}"
    for iteration, (models, expected) in enumerate(zip(history, reference, strict=True), start=1):
        differ = [
            model
            for model in models
            if not all(
                torch.allclose(a, b) for a, b in zip(models[model], expected[model], strict=True)
            )
        ]
        if differ:
            return f"no error; iteration {iteration} differs in the {' and the '.join(differ)}"
    return "same as the textbook loop"


LOOPS = [
    no_detach,
    no_detach_retain_graph,
    no_detach_cleared_before,
    step_between_backwards,
    cleared_after_step,
]
outcome = {}
for name, make_optimizer in OPTIMIZERS.items():
    reference = train(textbook, make_optimizer)
    outcome[name] = {loop.__name__: compare(loop, make_optimizer, reference) for loop in LOOPS}
for name, results in outcome.items():
    print(name)
    for loop, result in results.items():
        print(f"  {loop:26} {result}")
