import os
import re
import subprocess
import sys
from pathlib import Path

import paddle

# Paddle has no anomaly mode. Run the failing script of the in-place layers page as you
# would in a terminal, and read everything it prints.
failing = [sys.executable, str(Path(__file__).with_name("inplace_layers_paddle.py"))]
plain = subprocess.run(failing, capture_output=True, text=True)
log_line = re.search(r"While running Node \(\w+\) raises an \w+ exception", plain.stderr)
print(log_line.group(0) if log_line else "no such line")

# With FLAGS_call_stack_level=2, the exception itself carries the C++ traceback.
detailed = subprocess.run(
    failing, capture_output=True, text=True, env={**os.environ, "FLAGS_call_stack_level": "2"}
)
grad_nodes = re.findall(r"\w+GradNode::operator\(\)", detailed.stdout + detailed.stderr)
print(grad_nodes)
has_anomaly_mode = any("anomaly" in name for name in dir(paddle.autograd))
