#!/usr/bin/python3
"""An independent float reference of darknet's forward pass in numpy, for the layers YOLOv4-tiny uses
and Debian's libdarknet lacks ([route] groups, [yolo] scale_x_y). Written from darknet's C sources
(AlexeyAB's fork for those two), not from fpgacnn's code.

Usage: numpy_darknet_reference.py CFG WEIGHTS INPUT OUTPUT WIDTH HEIGHT
  INPUT  raw float32 CHW (3 x HEIGHT x WIDTH), the letterboxed image
  OUTPUT raw float32: every layer's output, one after the other, in layer order
Computes in float64 (the comparison's tolerance is relative to each layer's magnitude).
"""
import sys

import numpy as np


def parse_cfg(path):
    sections = []
    for raw in open(path):
        line = raw.split('#')[0].strip()
        if not line or line.startswith(';'):
            continue
        if line.startswith('['):
            sections.append((line.strip('[]'), {}))
        else:
            key, value = line.split('=', 1)
            sections[-1][1][key.strip()] = value.strip()
    return sections


class Weights:
    def __init__(self, path):
        data = open(path, 'rb').read()
        major, minor = np.frombuffer(data[:8], '<i4')
        offset = 20 if major * 10 + minor >= 2 else 16
        self.values = np.frombuffer(data[offset:], '<f4').astype(np.float64)
        self.at = 0

    def take(self, count):
        out = self.values[self.at:self.at + count]
        self.at += count
        return out


def activate(x, name):
    if name == 'leaky':
        return np.where(x > 0, x, 0.1 * x)
    if name == 'linear':
        return x
    if name == 'relu':
        return np.where(x > 0, x, 0.0)
    if name == 'logistic':
        return 1.0 / (1.0 + np.exp(-x))
    raise SystemExit('activation ' + name + ' is not in this reference')


def convolution(x, options, weights):
    c, h, w = x.shape
    filters = int(options.get('filters', 1))
    size = int(options.get('size', 1))
    stride = int(options.get('stride', 1))
    pad = size // 2 if int(options.get('pad', 0)) else int(options.get('padding', 0))
    biases = weights.take(filters)
    if int(options.get('batch_normalize', 0)):
        scales, mean, variance = weights.take(filters), weights.take(filters), weights.take(filters)
    kernel = weights.take(filters * c * size * size).reshape(filters, c * size * size)
    out_h = (h + 2 * pad - size) // stride + 1
    out_w = (w + 2 * pad - size) // stride + 1
    padded = np.zeros((c, h + 2 * pad, w + 2 * pad))
    padded[:, pad:pad + h, pad:pad + w] = x
    columns = np.empty((c, size, size, out_h, out_w))
    for ky in range(size):
        for kx in range(size):
            columns[:, ky, kx] = padded[:, ky:ky + stride * out_h:stride, kx:kx + stride * out_w:stride]
    y = (kernel @ columns.reshape(c * size * size, out_h * out_w)).reshape(filters, out_h, out_w)
    if int(options.get('batch_normalize', 0)):
        # darknet: (x - mean) / (sqrt(var) + .000001f) * scale, then + bias
        y = (y - mean[:, None, None]) / (np.sqrt(variance) + 0.000001)[:, None, None] * scales[:, None, None]
    return activate(y + biases[:, None, None], options.get('activation', 'logistic'))


def maxpool(x, options):
    c, h, w = x.shape
    stride = int(options.get('stride', 1))
    size = int(options.get('size', stride))
    padding = int(options.get('padding', size - 1))
    out_h = (h + padding - size) // stride + 1
    out_w = (w + padding - size) // stride + 1
    grown = np.full((c, h + padding + size, w + padding + size), -np.inf)
    left = padding // 2
    grown[:, left:left + h, left:left + w] = x
    out = np.full((c, out_h, out_w), -np.inf)
    for ky in range(size):
        for kx in range(size):
            out = np.maximum(out, grown[:, ky:ky + stride * out_h:stride, kx:kx + stride * out_w:stride])
    return out


def route(options, index, outputs):
    groups = int(options.get('groups', 1))
    group_id = int(options.get('group_id', 0))
    parts = []
    for entry in options['layers'].split(','):
        source = int(entry)
        tensor = outputs[index + source if source < 0 else source]
        part = tensor.shape[0] // groups
        parts.append(tensor[group_id * part:(group_id + 1) * part])
    return np.concatenate(parts, axis=0)


def upsample(x, options):
    stride = int(options.get('stride', 2))
    return np.repeat(np.repeat(x, stride, axis=1), stride, axis=2)


def yolo(x, options):
    classes = int(options.get('classes', 20))
    scale = float(options.get('scale_x_y', 1))
    out = x.copy()
    entries = classes + 5
    for n in range(x.shape[0] // entries):
        base = n * entries
        out[base:base + 2] = 1.0 / (1.0 + np.exp(-x[base:base + 2])) * scale - 0.5 * (scale - 1)
        out[base + 4:base + entries] = 1.0 / (1.0 + np.exp(-x[base + 4:base + entries]))
    return out


def main():
    cfg, weights_path, input_path, output_path, width, height = sys.argv[1:7]
    sections = parse_cfg(cfg)
    x = np.fromfile(input_path, '<f4').astype(np.float64).reshape(3, int(height), int(width))
    weights = Weights(weights_path)
    outputs = []
    for index, (name, options) in enumerate(sections[1:]):
        if name == 'convolutional':
            x = convolution(x, options, weights)
        elif name == 'maxpool':
            x = maxpool(x, options)
        elif name == 'route':
            x = route(options, index, outputs)
        elif name == 'upsample':
            x = upsample(x, options)
        elif name == 'yolo':
            x = yolo(x, options)
        else:
            raise SystemExit('section [' + name + '] is not in this reference')
        outputs.append(x)
    if weights.at != weights.values.size:
        raise SystemExit('the weights file has %d values, the cfg used %d' % (weights.values.size, weights.at))
    with open(output_path, 'wb') as out:
        for tensor in outputs:
            tensor.astype('<f4').tofile(out)


main()
