import paddle
import paddle.nn.functional as F
from paddle import nn

paddle.seed(0)
generator = nn.Linear(2, 4)
discriminator = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt_g = paddle.optimizer.Adam(0.01, parameters=generator.parameters())
opt_d = paddle.optimizer.Adam(0.01, parameters=discriminator.parameters())
noise, real = paddle.randn([8, 2]), paddle.randn([8, 4]) + 2.0


def bce(logits, target):
    return F.binary_cross_entropy_with_logits(logits, paddle.full_like(logits, target))


fake = generator(noise)
fake_logits = discriminator(fake)  # one forward of the fakes, used by both losses
d_loss = bce(discriminator(real), 1.0) + bce(fake_logits, 0.0)
g_loss = bce(fake_logits, 1.0)
# What g_loss.backward() should give the generator: its gradient through this forward.
expected = paddle.grad(g_loss, generator.weight, retain_graph=True)[0]

opt_d.clear_grad()
d_loss.backward(retain_graph=True)
opt_d.step()  # updates the discriminator's weights in place; g_loss's graph saved them
opt_g.clear_grad()
try:
    g_loss.backward()
    raised = False
    difference = (generator.weight.grad - expected).abs().max().item()
    message = f"no error; the generator's gradient is off by up to {difference:.4f}"
except RuntimeError as error:
    if "modified by an inplace operation" not in str(error):
        raise
    raised = True
    message = f"RuntimeError: {error}"
print(message)
opt_g.step()
