#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The probe (resources/headroom_probe.py) on PyTorch's CPU build, with the CUDA memory
functions provided here: "allocated" is the bytes of every live tensor the run holds (parameters,
gradients, optimizer state, the forward's saved output), so the readings can be checked against
hand arithmetic for a tiny model. Also the HF Trainer callback's events, driven the way the
Trainer calls them, and the Lightning callback under a stand-in `lightning` / `pytorch_lightning`
module (not installed here: no pip) whose Trainer calls the hooks in Lightning's documented order. Writes tests/data/probe/probe-tiny-adamw.json when run with --write.
Exit 77 (skipped) without torch."""
import json
import os
import sys
import tempfile

try:
    import torch
except ImportError:
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "resources"))
import headroom_probe  # noqa: E402

TOTAL = 80 * (1 << 30)


class FakeCuda:
    """torch.cuda's memory functions over a set of tensors the test says are on the 'GPU'."""

    def __init__(self):
        self.live = {}
        self.peak = 0
        self.reserve_extra = 2 * (1 << 20)

    def track(self, name, tensor):
        self.live[name] = tensor.numel() * tensor.element_size()
        self.peak = max(self.peak, self.memory_allocated())

    def drop(self, name):
        self.live.pop(name, None)

    def memory_allocated(self, device=None):
        return sum(self.live.values())

    def memory_reserved(self, device=None):
        return self.memory_allocated() + self.reserve_extra

    def max_memory_allocated(self, device=None):
        return self.peak

    def max_memory_reserved(self, device=None):
        return self.peak + self.reserve_extra

    def reset_peak_memory_stats(self, device=None):
        self.peak = self.memory_allocated()

    def mem_get_info(self, device=None):
        used = self.memory_reserved() + 500 * (1 << 20)  # the CUDA context
        return TOTAL - used, TOTAL

    def current_device(self):
        return 0

    def get_device_name(self, device=None):
        return "NVIDIA H100 80GB HBM3"


def install(fake):
    # The probe looks torch.cuda up at call time; give it the fake's functions.
    class Module:
        pass
    module = Module()
    for name in ("memory_allocated", "memory_reserved", "max_memory_allocated", "max_memory_reserved",
                 "reset_peak_memory_stats", "mem_get_info", "current_device", "get_device_name"):
        setattr(module, name, getattr(fake, name))
    headroom_probe._cuda = lambda: module


def run_loop(path):
    torch.manual_seed(0)
    fake = FakeCuda()
    install(fake)
    model = torch.nn.Linear(256, 512)  # 256 x 512 + 512 = 131,584 params, fp32: 526,336 B
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for name, p in model.named_parameters():
        fake.track("param." + name, p)
    batch = {"input_ids": torch.zeros(4, 64, dtype=torch.long)}
    with headroom_probe.Probe(path, model=model, optimizer=optimizer, steps=2) as probe:
        probe.loaded()
        for step in range(3):
            probe.begin_step(batch)
            x = torch.randn(4 * 64, 256)
            out = model(x)                       # the output is saved for backward: 256 x 512 x 4 B
            fake.track("activation", out)
            probe.after_forward()
            out.square().mean().backward()
            fake.drop("activation")
            for name, p in model.named_parameters():
                fake.track("grad." + name, p.grad)
            probe.after_backward()
            optimizer.step()
            for i, state in enumerate(optimizer.state.values()):
                fake.track(f"exp_avg.{i}", state["exp_avg"])
                fake.track(f"exp_avg_sq.{i}", state["exp_avg_sq"])
            probe.after_optimizer()
    return fake


def check_loop():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "probe.json")
        run_loop(path)
        with open(path) as f:
            doc = json.load(f)
    assert doc["format"] == "headroom-probe" and doc["version"] == 1, doc
    params = 256 * 512 + 512
    p_bytes = params * 4
    act = 256 * 512 * 4
    readings = doc["readings"]
    phases = [(r["phase"], r["step"]) for r in readings]
    # Two steps recorded (steps=2), the third not.
    assert phases == [("load", 0), ("forward", 0), ("backward", 0), ("optimizer", 0),
                      ("forward", 1), ("backward", 1), ("optimizer", 1)], phases
    load, fwd0, bwd0, opt0, fwd1, bwd1, opt1 = readings
    assert load["allocated_bytes"] == p_bytes, load
    assert fwd0["allocated_bytes"] == p_bytes + act, fwd0          # weights + the saved output
    assert fwd0["peak_allocated_bytes"] == p_bytes + act
    assert bwd0["allocated_bytes"] == 2 * p_bytes, bwd0            # weights + gradients
    # Each phase's own peak: backward starts from weights + output, ends with weights + gradients.
    assert bwd0["peak_allocated_bytes"] == max(p_bytes + act, 2 * p_bytes), bwd0
    assert opt0["peak_allocated_bytes"] == 4 * p_bytes, opt0
    assert opt0["allocated_bytes"] == 4 * p_bytes, opt0            # + AdamW's two moments
    assert fwd1["peak_allocated_bytes"] == 4 * p_bytes + act, fwd1  # step 2's forward on top of the state
    assert opt1["allocated_bytes"] == 4 * p_bytes
    assert all(r["reserved_bytes"] == r["allocated_bytes"] + 2 * (1 << 20) for r in readings)
    assert load["device_used_bytes"] == p_bytes + 2 * (1 << 20) + 500 * (1 << 20)
    facts = doc["facts"]
    assert facts["params"] == params and facts["trainable_params"] == params, facts
    assert facts["optimizer"] == "AdamW", facts
    assert facts["batch_shape"] == [4, 64], facts
    assert facts["dtypes"] == ["float32"], facts
    assert facts["world_size"] == 1 and facts["versions"]["torch"] == torch.__version__
    assert doc["device"] == {"index": 0, "name": "NVIDIA H100 80GB HBM3", "total_bytes": TOTAL}


def check_hf_callback():
    """The Trainer's order of events: train begin, then per step: step begin, the model's forward
    (the hook), pre-optimizer step, step end; train end writes."""
    fake = FakeCuda()
    install(fake)
    model = torch.nn.Linear(8, 8)
    for name, p in model.named_parameters():
        fake.track(name, p)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "probe.json")
        cb = headroom_probe.HfCallback(path, steps=1)
        cb.on_init_end(None, None, None)  # an event the probe does not use is accepted
        cb.on_train_begin(None, None, None, model=model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
        cb.on_step_begin(None, None, None)
        model.train()
        model(torch.randn(2, 8)).sum().backward()
        cb.on_pre_optimizer_step(None, None, None)
        cb.on_step_end(None, None, None)
        cb.on_train_end(None, None, None)
        with open(path) as f:
            doc = json.load(f)
    assert [r["phase"] for r in doc["readings"]] == ["load", "forward", "backward", "optimizer"], doc["readings"]
    assert doc["facts"]["optimizer"] == "SGD"
    assert doc["facts"]["batch_shape"] == [2, 8], doc["facts"]  # from the model's forward pre-hook


# Lightning's hook order for fit (lightning.ai/docs/pytorch/stable/common/lightning_module.html#hooks,
# "Hooks"): setup, configure_optimizers, on_fit_start, on_train_start, then per batch
# on_train_batch_start, training_step, on_before_zero_grad, optimizer_zero_grad, on_before_backward,
# backward, on_after_backward, on_before_optimizer_step, optimizer_step, on_train_batch_end; then
# on_train_end, on_fit_end.
LIGHTNING_HOOKS = ("on_fit_start", "on_train_start", "on_train_batch_start", "on_before_zero_grad",
                   "on_before_backward", "on_after_backward", "on_before_optimizer_step", "on_train_batch_end",
                   "on_train_end", "on_fit_end")


def lightning_stand_in(module_name):
    """A module with Lightning's Callback base (every hook a no-op, as in
    lightning/pytorch/callbacks/callback.py) at `module_name` ("lightning.pytorch" or
    "pytorch_lightning"), and a Trainer-like object driving it."""
    import types

    class Callback:
        pass
    for hook in LIGHTNING_HOOKS:
        setattr(Callback, hook, lambda self, *args, **kwargs: None)

    class Trainer:
        """fit() of a LightningModule-like `module` with one optimizer: the hooks in Lightning's order,
        the fake CUDA told which tensors are live."""

        def __init__(self, callbacks, fake, max_steps):
            self.callbacks = callbacks
            self.fake = fake
            self.max_steps = max_steps
            self.optimizers = []
            self.called = []

        def _hook(self, name, *args):
            self.called.append(name)
            for cb in self.callbacks:
                assert isinstance(cb, Callback), cb  # Lightning refuses anything else
                getattr(cb, name)(self, *args)

        def fit(self, module, batches):
            self.optimizers = [module.configure_optimizers()]
            optimizer = self.optimizers[0]
            self._hook("on_fit_start", module)
            self._hook("on_train_start", module)
            for idx, batch in enumerate(batches[:self.max_steps]):
                self._hook("on_train_batch_start", module, batch, idx)
                loss = module.training_step(batch, idx)
                self.fake.track("activation", module.saved)
                self._hook("on_before_zero_grad", module, optimizer)
                optimizer.zero_grad()
                self._hook("on_before_backward", module, loss)
                loss.backward()
                self.fake.drop("activation")
                for name, p in module.named_parameters():
                    self.fake.track("grad." + name, p.grad)
                self._hook("on_after_backward", module)
                self._hook("on_before_optimizer_step", module, optimizer)
                optimizer.step()
                for i, state in enumerate(optimizer.state.values()):
                    self.fake.track(f"exp_avg.{i}", state["exp_avg"])
                    self.fake.track(f"exp_avg_sq.{i}", state["exp_avg_sq"])
                self._hook("on_train_batch_end", module, {"loss": loss}, batch, idx)
            self._hook("on_train_end", module)
            self._hook("on_fit_end", module)

    names = module_name.split(".")
    modules = {}
    for i in range(len(names)):
        modules[".".join(names[:i + 1])] = types.ModuleType(".".join(names[:i + 1]))
    modules[module_name].Callback = Callback
    return modules, Trainer


class LitLinear(torch.nn.Module):
    """A LightningModule's three methods over one Linear(16, 32): 16 x 32 + 32 = 544 params."""

    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(16, 32)
        self.saved = None

    def training_step(self, batch, idx):
        x, _ = batch
        self.saved = self.layer(x)  # kept for backward: 4 x 32 x 4 B
        return self.saved.square().mean()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def check_lightning_callback():
    for module_name, absent in (("lightning.pytorch", None), ("pytorch_lightning", "lightning")):
        modules, Trainer = lightning_stand_in(module_name)
        saved = {name: sys.modules.get(name) for name in list(modules) + ["lightning", "lightning.pytorch"]}
        try:
            sys.modules.update(modules)
            if absent:
                sys.modules[absent] = None  # `import lightning` raises ImportError: the fallback is taken
                sys.modules[absent + ".pytorch"] = None
            fake = FakeCuda()
            install(fake)
            torch.manual_seed(0)
            module = LitLinear()
            for name, p in module.named_parameters():
                fake.track("param." + name, p)
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "probe.json")
                cb = headroom_probe.lightning_callback(path, steps=1)
                batches = [(torch.randn(4, 16), torch.zeros(4, dtype=torch.long)) for _ in range(2)]
                trainer = Trainer([cb], fake, max_steps=2)
                trainer.fit(module, batches)
                assert trainer.called[:2] == ["on_fit_start", "on_train_start"], trainer.called
                with open(path) as f:
                    doc = json.load(f)
        finally:
            for name, value in saved.items():
                if value is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = value
        assert doc["format"] == "headroom-probe", doc
        p_bytes = (16 * 32 + 32) * 4
        act = 4 * 32 * 4
        readings = doc["readings"]
        # steps=1: load and the first step's three phases; the second batch is not recorded.
        assert [(r["phase"], r["step"]) for r in readings] == [("load", 0), ("forward", 0), ("backward", 0),
                                                               ("optimizer", 0)], (module_name, readings)
        load, fwd, bwd, opt = readings
        assert load["allocated_bytes"] == p_bytes, load             # on_train_start: the weights
        assert fwd["allocated_bytes"] == p_bytes + act, fwd          # on_before_backward: + the saved output
        assert fwd["peak_allocated_bytes"] == p_bytes + act, fwd
        assert bwd["allocated_bytes"] == 2 * p_bytes, bwd            # on_after_backward: + gradients
        assert opt["allocated_bytes"] == 4 * p_bytes, opt            # on_train_batch_end: + AdamW's moments
        facts = doc["facts"]
        assert facts["optimizer"] == "AdamW", facts                  # trainer.optimizers at on_fit_start
        assert facts["params"] == 16 * 32 + 32, facts
        assert facts["batch_shape"] == [4, 16], facts                # the batch's first 2-D tensor


class TinyLlamaConfig:
    """A config.json's keys, as a transformers config's to_dict() gives them."""

    def __init__(self):
        self.values = {"model_type": "llama", "hidden_size": 256, "intermediate_size": 688,
                       "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                       "vocab_size": 1000, "max_position_embeddings": 512, "rms_norm_eps": 1e-5,
                       "tie_word_embeddings": False, "torch_dtype": "bfloat16", "hidden_act": "silu"}
        self._attn_implementation = "sdpa"

    def to_dict(self):
        return dict(self.values)


class TinyLlama(torch.nn.Module):
    """The tensors of Hugging Face's LlamaForCausalLM for TinyLlamaConfig, with random weights:
    embed_tokens, per layer q/k/v/o, gate/up/down and two RMSNorm weights, the final norm, lm_head."""

    def __init__(self, c):
        super().__init__()
        self.config = TinyLlamaConfig()
        h, i, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
        kv = h // c["num_attention_heads"] * c["num_key_value_heads"]
        self.embed_tokens = torch.nn.Embedding(v, h)
        self.layers = torch.nn.ModuleList()
        for _ in range(c["num_hidden_layers"]):
            layer = torch.nn.Module()
            layer.q_proj = torch.nn.Linear(h, h, bias=False)
            layer.k_proj = torch.nn.Linear(h, kv, bias=False)
            layer.v_proj = torch.nn.Linear(h, kv, bias=False)
            layer.o_proj = torch.nn.Linear(h, h, bias=False)
            layer.gate_proj = torch.nn.Linear(h, i, bias=False)
            layer.up_proj = torch.nn.Linear(h, i, bias=False)
            layer.down_proj = torch.nn.Linear(i, h, bias=False)
            layer.input_layernorm = torch.nn.Parameter(torch.ones(h))
            layer.post_attention_layernorm = torch.nn.Parameter(torch.ones(h))
            self.layers.append(layer)
        self.norm = torch.nn.Parameter(torch.ones(h))
        self.lm_head = torch.nn.Linear(h, v, bias=False)

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            a = x * layer.input_layernorm
            x = x + layer.o_proj(layer.q_proj(a)) + (layer.k_proj(a) * layer.v_proj(a)).sum(-1, keepdim=True)
            m = x * layer.post_attention_layernorm
            x = x + layer.down_proj(torch.nn.functional.silu(layer.gate_proj(m)) * layer.up_proj(m))
        return self.lm_head(x * self.norm)


def write_tiny_llama(path):
    """A full fine-tune of TinyLlama in bf16 with AdamW, micro-batch 2 x 128 tokens."""
    fake = FakeCuda()
    install(fake)
    model = TinyLlama(TinyLlamaConfig().values).to(torch.bfloat16)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for name, p in model.named_parameters():
        fake.track("param." + name, p)
    batch = {"input_ids": torch.randint(0, 1000, (2, 128))}
    with headroom_probe.Probe(path, model=model, optimizer=optimizer, steps=2) as probe:
        probe.loaded()
        for step in range(2):
            probe.begin_step(batch)
            logits = model(batch["input_ids"])
            fake.track("logits", logits)
            probe.after_forward()
            logits.float().square().mean().backward()
            fake.drop("logits")
            for name, p in model.named_parameters():
                fake.track("grad." + name, p.grad)
            probe.after_backward()
            optimizer.step()
            for i, state in enumerate(optimizer.state.values()):
                fake.track(f"m.{i}", state["exp_avg"])
                fake.track(f"v.{i}", state["exp_avg_sq"])
            probe.after_optimizer()
    return sum(p.numel() for p in model.parameters())


def main():
    check_loop()
    check_hf_callback()
    check_lightning_callback()
    if "--write" in sys.argv:
        here = os.path.dirname(os.path.abspath(__file__))
        out = os.path.join(here, "..", "data", "probe", "probe-tiny-adamw.json")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        run_loop(out)
        params = write_tiny_llama(os.path.join(os.path.dirname(out), "probe-tiny-llama-bf16-adamw.json"))
        # 1000 x 256 (embed) + 2 x (256x256 x 2 + 256x128 x 2 + 3 x 256x688 + 2 x 256) + 256 + 256 x 1000
        assert params == 1000 * 256 + 2 * (2 * 256 * 256 + 2 * 256 * 128 + 3 * 256 * 688 + 2 * 256) + 256 + 256 * 1000, params
    print("probe: all checks passed")


if __name__ == "__main__":
    main()
