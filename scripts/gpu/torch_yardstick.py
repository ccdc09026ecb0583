"""The native-GPU yardstick: ResNet-50 and VGG-19 timed with PyTorch on CUDA, as dmlrun times its
DirectML runs of the same architectures (scripts/gpu/run-on-gpu, GPU_STEPS=speed): random
weights, a random input already on the GPU, warm-up runs, then each run timed alone (synchronised)
and the median kept. float32 with TF32 off (so float32 means float32, as on DirectML) and float16
(the model and input in half precision); cuDNN's autotuner on, as a tuned PyTorch deployment has
it. At batch 1 and 8 also with the forward pass captured as a CUDA graph and replayed.

torchvision's definitions where torchvision is installed; otherwise the same architectures written
here (ResNet-50 v1.5 and VGG-19 without batch norm, as torchvision defines them). The JSON says
which.

    python3 torch_yardstick.py OUT.json [--batches 1,2,4,8,16,32,64] [--iterations 200]
"""
import argparse
import json
import statistics
import sys
import time

import torch
from torch import nn


class Bottleneck(nn.Module):
    def __init__(self, inplanes, planes, stride, downsample):
        super().__init__()
        width = planes
        self.conv1 = nn.Conv2d(inplanes, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        return self.relu(self.bn3(self.conv3(out)) + identity)


def resnet50():
    layers, inplanes = [], 64
    for planes, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            s = stride if i == 0 else 1
            down = None
            if s != 1 or inplanes != planes * 4:
                down = nn.Sequential(nn.Conv2d(inplanes, planes * 4, 1, s, bias=False), nn.BatchNorm2d(planes * 4))
            layers.append(Bottleneck(inplanes, planes, s, down))
            inplanes = planes * 4
    return nn.Sequential(
        nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1),
        *layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000))


def vgg19():
    features, c = [], 3
    for v in (64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"):
        if v == "M":
            features.append(nn.MaxPool2d(2, 2))
        else:
            features += [nn.Conv2d(c, v, 3, padding=1), nn.ReLU(inplace=True)]
            c = v
    return nn.Sequential(
        *features, nn.AdaptiveAvgPool2d(7), nn.Flatten(),
        nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(), nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(),
        nn.Linear(4096, 1000))


def build(name):
    try:
        import torchvision
        return getattr(torchvision.models, name)(weights=None), f"torchvision {torchvision.__version__}"
    except ImportError:
        return {"resnet50": resnet50, "vgg19": vgg19}[name](), "defined in torch_yardstick.py (torchvision absent)"


def time_runs(forward, warmup, iterations):
    for _ in range(warmup):
        forward()
    torch.cuda.synchronize()
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        forward()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - start) * 1000.0)
    samples.sort()
    return {"p50": statistics.median(samples), "p99": samples[min(len(samples) - 1, int(0.99 * len(samples)))],
            "mean": statistics.fmean(samples), "count": len(samples)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--models", default="resnet50,vgg19")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--sweep", default="1,2,4,8,16,32,64", help="ResNet-50's batch sweep")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=200)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_yardstick: no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(1)
    device = torch.device("cuda")
    result = {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
              "gpu": torch.cuda.get_device_name(0), "tf32": False, "cudnn_benchmark": True, "runs": []}
    for name in args.models.split(","):
        batches = sorted({int(b) for b in args.batches.split(",")} | (
            {int(b) for b in args.sweep.split(",")} if name == "resnet50" and args.sweep else set()))
        for precision, dtype in (("fp32", torch.float32), ("fp16", torch.float16)):
            model, source = build(name)
            model = model.eval().to(device=device, dtype=dtype)
            result.setdefault("definitions", {})[name] = source
            for batch in batches:
                x = torch.randn(batch, 3, 224, 224, device=device, dtype=dtype)
                with torch.inference_mode():
                    eager = time_runs(lambda: model(x), args.warmup, args.iterations)
                    row = {"model": name, "precision": precision, "batch": batch, "eager_ms": eager}
                    if batch in (1, 8):
                        # The forward pass captured once and replayed: no Python or launch cost.
                        stream = torch.cuda.Stream()
                        stream.wait_stream(torch.cuda.current_stream())
                        with torch.cuda.stream(stream):
                            for _ in range(3):
                                model(x)
                        torch.cuda.current_stream().wait_stream(stream)
                        graph = torch.cuda.CUDAGraph()
                        with torch.cuda.graph(graph):
                            model(x)
                        row["cuda_graph_ms"] = time_runs(graph.replay, args.warmup, args.iterations)
                        del graph
                row["items_per_s"] = batch * 1000.0 / eager["p50"]
                result["runs"].append(row)
                graph_text = f", CUDA graph {row['cuda_graph_ms']['p50']:.3f}" if "cuda_graph_ms" in row else ""
                print(f"{name} {precision} b{batch}: eager p50 {eager['p50']:.3f} ms{graph_text}", flush=True)
            del model
            torch.cuda.empty_cache()
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
