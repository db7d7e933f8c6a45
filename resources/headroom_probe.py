# SPDX-License-Identifier: GPL-3.0-or-later
"""Headroom's probe: GPU memory of a training run at the moments "Make room on your GPU" names
(after loading, at the busiest forward pass, after backward, after the optimizer step), with the
facts Headroom needs to estimate the same run, written as one JSON file ("headroom-probe" v1,
docs/scenario-format.md). `headroom compare probe.json [SCENARIO]` puts it beside the estimate.

One file, nothing but PyTorch. Use it as a context manager around a hand-written loop:

    import headroom_probe
    with headroom_probe.Probe("probe.json", model=model, optimizer=optimizer) as probe:
        probe.loaded()                       # after the model is on the GPU
        for step, batch in enumerate(loader):
            probe.begin_step(batch)          # resets the peak, records the batch's shape
            loss = model(**batch).loss
            probe.after_forward()            # the forward's peak
            loss.backward()
            probe.after_backward()
            optimizer.step(); optimizer.zero_grad()
            probe.after_optimizer()
            if step == 2: break

or as a callback: `trainer.add_callback(headroom_probe.HfCallback("probe.json"))` for the Hugging
Face Trainer and TRL's trainers, `headroom_probe.lightning_callback("probe.json")` for PyTorch
Lightning, and the calls above in a torchtune recipe's training loop (torchtune has no callback
hooks). Only the first `steps` steps (default 3) are recorded.
"""
import json
import os
import sys

import torch

FORMAT = "headroom-probe"
VERSION = 1
PHASES = ("load", "forward", "backward", "optimizer")


def _cuda():
    """torch.cuda, looked up at call time (a test replaces its memory functions)."""
    return torch.cuda


def _versions():
    found = {"torch": torch.__version__, "python": sys.version.split()[0]}
    for name in ("transformers", "trl", "peft", "accelerate", "lightning", "pytorch_lightning", "torchtune",
                 "deepspeed", "bitsandbytes"):
        module = sys.modules.get(name)  # only what the script imported itself
        if module is not None and getattr(module, "__version__", None):
            found[name] = str(module.__version__)
    return found


def _plain(value, depth=0):
    """A config value as JSON can hold it (nested dicts and lists of numbers and strings)."""
    if depth > 8:
        return None
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, torch.dtype):
        return str(value).replace("torch.", "")
    return str(value)


class Probe:
    """Records memory readings and the run's facts; writes them on exit (or with write())."""

    def __init__(self, path="headroom-probe.json", model=None, optimizer=None, device=None, steps=3):
        self.path = path
        self.model = model
        self.optimizer = optimizer
        self.steps = steps
        self.step = 0
        self.readings = []
        self.batch_shape = None
        self.device = device

    # -- the context manager ------------------------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.write()
        return False

    # -- readings -----------------------------------------------------------------------------
    def _device_index(self):
        if self.device is not None:
            return self.device.index if isinstance(self.device, torch.device) else int(self.device)
        return _cuda().current_device()

    def _read(self, phase):
        if self.step >= self.steps and phase != "load":
            return
        cuda = _cuda()
        index = self._device_index()
        free, total = cuda.mem_get_info(index)
        self.readings.append({
            "phase": phase,
            "step": self.step,
            "allocated_bytes": int(cuda.memory_allocated(index)),
            "reserved_bytes": int(cuda.memory_reserved(index)),
            "peak_allocated_bytes": int(cuda.max_memory_allocated(index)),
            "peak_reserved_bytes": int(cuda.max_memory_reserved(index)),
            "device_used_bytes": int(total - free),
        })

    def loaded(self):
        """After the model (and the optimizer) are on the GPU."""
        self._read("load")
        _cuda().reset_peak_memory_stats(self._device_index())

    def begin_step(self, batch=None):
        """At the start of a step: the peak starts here; the batch's (batch, sequence) shape is kept."""
        shape = _shape(batch)
        if shape is not None and self.batch_shape is None:
            self.batch_shape = shape
        _cuda().reset_peak_memory_stats(self._device_index())

    def _next_phase(self):
        # Each reading's peak is its own phase's: the peak starts again after it.
        _cuda().reset_peak_memory_stats(self._device_index())

    def after_forward(self):
        self._read("forward")
        self._next_phase()

    def after_backward(self):
        self._read("backward")
        self._next_phase()

    def after_optimizer(self):
        self._read("optimizer")
        self._next_phase()
        self.step += 1

    # -- facts --------------------------------------------------------------------------------
    def facts(self):
        found = {"versions": _versions()}
        model = self.model
        if model is not None:
            params = list(model.parameters())
            found["params"] = int(sum(p.numel() for p in params))
            found["trainable_params"] = int(sum(p.numel() for p in params if p.requires_grad))
            dtypes = sorted({str(p.dtype).replace("torch.", "") for p in params})
            found["dtypes"] = dtypes
            config = getattr(model, "config", None)
            if config is not None and hasattr(config, "to_dict"):
                found["config"] = _plain(config.to_dict())
                found["attn_implementation"] = getattr(config, "_attn_implementation", None)
            found["gradient_checkpointing"] = bool(getattr(model, "is_gradient_checkpointing", False))
            peft = getattr(model, "peft_config", None)
            if isinstance(peft, dict) and peft:
                first = next(iter(peft.values()))
                found["peft"] = {"type": str(getattr(first, "peft_type", "")),
                                 "r": getattr(first, "r", None),
                                 "target_modules": _plain(sorted(getattr(first, "target_modules", None) or [])),
                                 "lora_dropout": getattr(first, "lora_dropout", None)}
            if getattr(model, "is_loaded_in_4bit", False):
                found["quantization"] = "4bit"
            elif getattr(model, "is_loaded_in_8bit", False):
                found["quantization"] = "8bit"
        if self.optimizer is not None:
            opt = self.optimizer
            found["optimizer"] = type(opt).__name__
            groups = getattr(opt, "param_groups", [])
            if groups:
                found["optimizer_settings"] = {k: _plain(v) for k, v in groups[0].items() if k != "params"}
        if self.batch_shape is not None:
            found["batch_shape"] = list(self.batch_shape)
        dist = getattr(torch, "distributed", None)
        if dist is not None and dist.is_available() and dist.is_initialized():
            found["world_size"] = dist.get_world_size()
            found["rank"] = dist.get_rank()
        else:
            found["world_size"] = int(os.environ.get("WORLD_SIZE", "1"))
            found["rank"] = int(os.environ.get("RANK", "0"))
        return found

    def document(self):
        cuda = _cuda()
        index = self._device_index()
        free, total = cuda.mem_get_info(index)
        return {"format": FORMAT, "version": VERSION,
                "device": {"index": index, "name": str(cuda.get_device_name(index)), "total_bytes": int(total)},
                "readings": self.readings, "facts": self.facts()}

    def write(self, path=None):
        with open(path or self.path, "w") as f:
            json.dump(self.document(), f, indent=1)


def _shape(batch):
    """(batch, sequence) of the first 2-D integer tensor in the batch (input_ids), if any."""
    if isinstance(batch, torch.Tensor):
        return tuple(batch.shape[:2]) if batch.dim() >= 2 else None
    if isinstance(batch, dict):
        for key in ("input_ids", "tokens", "input"):
            if key in batch:
                return _shape(batch[key])
        for value in batch.values():
            shape = _shape(value)
            if shape is not None:
                return shape
    if isinstance(batch, (list, tuple)):
        for value in batch:
            shape = _shape(value)
            if shape is not None:
                return shape
    return None


class HfCallback:
    """A Hugging Face Trainer (and TRL) callback: the Trainer calls every on_* event by name, so
    this needs no import of transformers. Forward, backward and optimizer readings come from a
    forward hook on the model and the Trainer's optimizer events."""

    def __init__(self, path="headroom-probe.json", steps=3):
        self.probe = Probe(path, steps=steps)
        self._hook = None
        self._pre_hook = None

    def __getattr__(self, name):
        if name.startswith("on_"):
            return lambda *args, **kwargs: None
        raise AttributeError(name)

    def on_train_begin(self, args, state, control, model=None, optimizer=None, **kwargs):
        self.probe.model = model
        self.probe.optimizer = optimizer
        self.probe.loaded()
        if model is not None and self._hook is None:
            def after_forward(module, inputs, output):
                if module.training and torch.is_grad_enabled():
                    self.probe.after_forward()
            self._hook = model.register_forward_hook(after_forward)

            # The Trainer calls model(**inputs): the batch's shape is in the keyword arguments
            # (PyTorch 2.0 passes them to a pre-hook; older versions only the positional ones).
            def before_forward(module, args, kwargs=None):
                if self.probe.batch_shape is None:
                    self.probe.batch_shape = _shape(kwargs) if kwargs else None
                    if self.probe.batch_shape is None:
                        self.probe.batch_shape = _shape(list(args))
            try:
                self._pre_hook = model.register_forward_pre_hook(before_forward, with_kwargs=True)
            except TypeError:
                self._pre_hook = model.register_forward_pre_hook(lambda m, a: before_forward(m, a))

    def on_step_begin(self, args, state, control, **kwargs):
        self.probe.begin_step(kwargs.get("inputs"))

    def on_pre_optimizer_step(self, args, state, control, optimizer=None, **kwargs):
        if optimizer is not None:
            self.probe.optimizer = optimizer
        self.probe.after_backward()

    def on_step_end(self, args, state, control, **kwargs):
        self.probe.after_optimizer()

    def on_train_end(self, args, state, control, **kwargs):
        for hook in (self._hook, self._pre_hook):
            if hook is not None:
                hook.remove()
        self.probe.write()


def lightning_callback(path="headroom-probe.json", steps=3):
    """A PyTorch Lightning callback (Lightning is imported here, not when this module loads)."""
    try:
        from lightning.pytorch import Callback
    except ImportError:
        from pytorch_lightning import Callback

    class _ProbeCallback(Callback):
        def __init__(self):
            super().__init__()
            self.probe = Probe(path, steps=steps)

        def on_fit_start(self, trainer, module):
            self.probe.model = module
            optimizers = trainer.optimizers
            self.probe.optimizer = optimizers[0] if optimizers else None

        def on_train_start(self, trainer, module):
            self.probe.loaded()

        def on_train_batch_start(self, trainer, module, batch, batch_idx):
            self.probe.begin_step(batch)

        def on_before_backward(self, trainer, module, loss):
            self.probe.after_forward()

        def on_after_backward(self, trainer, module):
            self.probe.after_backward()

        def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
            self.probe.after_optimizer()

        def on_fit_end(self, trainer, module):
            self.probe.write()

    return _ProbeCallback()
