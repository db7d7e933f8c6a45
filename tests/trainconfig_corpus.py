#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""An independent reader of the frameworks' example configs under tests/data/trainconfigs.

Every example config of torchtune's recipes/configs, LLaMA-Factory's examples, Axolotl's
examples and LitGPT's config_hub is kept there (README.md: repository and commit). This script
reads each one with PyYAML, as the frameworks read them, and writes what the file states in the
terms the issue asks about (method, batch, sequence, precision, GPUs, sharding, objective), or
the refusal it must get: corpus.json. tst_trainconfigs checks Headroom's reader against it, file
by file; `--check` fails when corpus.json is not what this reader says (ctest runs it).

It is written from the frameworks' documentation and recipes, not from Headroom's C++ reader: where
the two disagree, one of them is wrong, and the test says which file.
"""
import json
import os
import re
import sys

import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "trainconfigs")
OUT = os.path.join(ROOT, "corpus.json")
COUNT = "give the count (--gpus N)"  # a sharded run whose file does not say how many GPUs


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".json"):
        return text, json.loads(text)
    return text, yaml.safe_load(text)


def dotted(tree, path):
    node = tree
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def count(value):
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


# torchtune: recipes/configs/**.yaml. The recipe is the one its header's `tune run` line runs.
def torchtune_launch(text):
    for line in text.splitlines()[:200]:
        stripped = line.strip()
        if not stripped.startswith("#") or "tune run " not in stripped:
            continue
        words = stripped[stripped.index("tune run ") + 9:].split()
        launch = {"nproc": None, "nnodes": None, "recipe": ""}
        i = 0
        while i < len(words):
            word = words[i]
            if word.startswith("--"):
                name, _, value = word.partition("=")
                if not value and i + 1 < len(words):
                    i += 1
                    value = words[i]
                if value.isdigit() and int(value) > 0:
                    if name in ("--nproc_per_node", "--nproc-per-node"):
                        launch["nproc"] = int(value)
                    elif name == "--nnodes":
                        launch["nnodes"] = int(value)
            else:
                launch["recipe"] = word
                break
            i += 1
        return launch
    return {"nproc": None, "nnodes": None, "recipe": ""}


def torchtune(text, y):
    launch = torchtune_launch(text)
    recipe = launch["recipe"]
    has = lambda key: key in y and y[key] is not None
    if has("policy_model") or has("reward_and_value_model") or "ppo" in recipe:
        return {"refused": "this is a torchtune PPO config"}
    if "grpo" in recipe or has("num_generations"):
        return {"refused": "this is a torchtune GRPO config"}
    trains = has("optimizer") or has("loss")
    if not trains and (has("max_new_tokens") or has("prompt") or "generate" in recipe):
        return {"refused": "this is a torchtune generation config"}
    if not trains and (has("tasks") or "eval" in recipe):
        return {"refused": "this is a torchtune evaluation config"}
    if not trains and has("quantizer"):
        return {"refused": "this is a torchtune quantization config"}
    if "qat" in recipe or (trains and isinstance(y.get("quantizer"), dict)):
        return {"refused": "this is a torchtune quantization-aware training config"}
    read = {}
    builder = str(dotted(y, "model._component_") or "").rsplit(".", 1)[-1]
    if builder.startswith("qlora_") or dotted(y, "model.quantize_base") is True:
        read["train.method"] = "qlora"
    elif builder.startswith("lora_"):
        read["train.method"] = "lora"
    else:
        read["train.method"] = "full"
    if count(y.get("batch_size")):
        read["train.micro_batch"] = y["batch_size"]
    if count(y.get("gradient_accumulation_steps")):
        read["train.grad_accum"] = y["gradient_accumulation_steps"]
    if count(dotted(y, "tokenizer.max_seq_len")):
        read["train.seq_len"] = dotted(y, "tokenizer.max_seq_len")
    if y.get("dtype") in ("bf16", "fp32"):
        read["precision.compute"] = y["dtype"]
    if "dpo" in recipe:
        read["train.objective"] = "dpo"
    entry = {"read": read}
    if has("teacher_model"):
        read["train.objective"] = "distillation"
        # The teacher must be a model Headroom knows (no config.json can stand in for it).
        entry["or_refused"] = "teacher"  # teacher_model._component_ or its vocabulary against the student's
    fsdp_keys = any(has(k) for k in ("fsdp_cpu_offload", "custom_sharded_layers", "fsdp_reshard_after_forward",
                                     "memory_efficient_fsdp_wrap", "fsdp_sharding_strategy"))
    if "distributed" in recipe or fsdp_keys:
        read["parallel.strategy"] = "fsdp"
        if "distributed" in recipe and launch["nproc"]:
            read["parallel.gpus"] = launch["nproc"] * (launch["nnodes"] or 1)
        else:
            return {"refused": COUNT}
    elif "single_device" in recipe:
        read["parallel.strategy"] = None
    return entry


# LLaMA-Factory: examples/**.yaml (llamafactory-cli train), with the Accelerate and DeepSpeed
# files they name; the GPU count is the launcher's (every visible GPU), never in the file.
def llamafactory(rel, y):
    if any(k in y for k in ("model_class", "dist_config", "kernel_config")) or "peft_config" in y:
        return {"refused": "this is a LLaMA-Factory v1 config"} if "model_class" in y or "micro_batch_size" in y \
            else {"refused": "cannot tell which framework wrote this file"}
    if "distributed_type" in y or "compute_environment" in y:
        return accelerate(rel, y)
    if not any(k in y for k in ("model_name_or_path", "stage", "finetuning_type", "cutoff_len", "template")):
        return {"refused": "cannot tell which framework wrote this file"}
    stage = y.get("stage", "sft")
    # hparams: export (export_dir), inference (infer_backend) or prediction (do_predict without
    # do_train) run no training; Megatron-Core (use_mca) and KTransformers (use_kt) have their
    # own trainers.
    if y.get("export_dir") is not None:
        return {"refused": "LLaMA-Factory export (merge) config"}
    if "infer_backend" in y or (not y.get("do_train") and y.get("do_predict")):
        return {"refused": "LLaMA-Factory inference or prediction config"}
    if any(k in y for k in ("tensor_model_parallel_size", "pipeline_model_parallel_size", "use_mca")):
        return {"refused": "LLaMA-Factory Megatron-Core"}
    if y.get("use_kt"):
        return {"refused": "LLaMA-Factory KTransformers"}
    if stage == "rm":
        return {"refused": "LLaMA-Factory reward-model config"}
    if stage == "ppo":
        return {"refused": "LLaMA-Factory PPO config"}
    kind = y.get("finetuning_type", "lora")
    if kind not in ("lora", "full"):
        return {"refused": "finetuning_type: " + str(kind)}
    read = {}
    bits = y.get("quantization_bit")
    if kind == "full":
        read["train.method"] = "full"
    elif bits == 4:
        read["train.method"] = "qlora"
    else:
        read["train.method"] = "lora"
    if stage == "kto":
        read["train.objective"] = "kto"
    if stage == "dpo":
        read["train.objective"] = "dpo" if y.get("pref_loss", "sigmoid") in ("sigmoid", "hinge", "ipo", "kto_pair") else "preference"
    if count(y.get("per_device_train_batch_size")):
        read["train.micro_batch"] = y["per_device_train_batch_size"]
    if count(y.get("gradient_accumulation_steps")):
        read["train.grad_accum"] = y["gradient_accumulation_steps"]
    read["train.seq_len"] = count(y.get("cutoff_len")) or 2048  # DataArguments.cutoff_len's default
    if y.get("bf16") is True or y.get("pure_bf16") is True:
        read["precision.compute"] = "bf16"
    elif y.get("fp16") is True:
        read["precision.compute"] = "fp16"
    ds = y.get("deepspeed")
    if isinstance(ds, str):
        path = os.path.join(ROOT, "llamafactory", ds)
        if not os.path.isfile(path):
            return {"refused": "deepspeed: names"}
        # Any DeepSpeed stage (0 is plain data parallelism) runs on the launcher's GPUs.
        return {"refused": COUNT}
    return {"read": read}


# Axolotl: examples/**.y(a)ml (axolotl train), with the DeepSpeed files they name.
def axolotl(rel, y):
    if not isinstance(y, dict) or not any(k in y for k in ("base_model", "sequence_len", "sample_packing", "adapter")):
        return {"refused": "cannot tell which framework wrote this file"}
    if y.get("qat"):
        return {"refused": "qat: quantization-aware training"}
    if y.get("process_reward_model"):
        return {"refused": "process_reward_model"}
    read = {}
    rl = y.get("rl")
    if rl in ("dpo", "ipo"):
        read["train.objective"] = "dpo"
    elif rl == "kto":
        read["train.objective"] = "kto"
    elif rl in ("orpo", "simpo", "cpo"):
        read["train.objective"] = "preference"
    elif rl:
        return {"refused": "rl: post-training"}
    if y.get("reward_model"):
        read["train.objective"] = "reward"
    adapter = y.get("adapter")
    if adapter == "qlora":
        read["train.method"] = "qlora"
    elif adapter == "lora":
        read["train.method"] = "lora"
    elif not adapter:
        read["train.method"] = "full"
    if count(y.get("micro_batch_size")):
        read["train.micro_batch"] = y["micro_batch_size"]
    if count(y.get("gradient_accumulation_steps")):
        read["train.grad_accum"] = y["gradient_accumulation_steps"]
    if count(y.get("sequence_len")):
        read["train.seq_len"] = y["sequence_len"]
    if y.get("bf16") is True:
        read["precision.compute"] = "bf16"
    elif y.get("fp16") is True and not y.get("bf16"):
        read["precision.compute"] = "fp16"
    # Axolotl's world size is dp_shard_size x dp_replicate_size x tensor x context; without
    # dp_shard_size (which defaults to what the launcher's count leaves) the count is not stated.
    tp = count(y.get("tensor_parallel_size")) or 1
    cp = count(y.get("context_parallel_size")) or 1
    shard = count(y.get("dp_shard_size"))
    sharded = bool(y.get("fsdp") or y.get("fsdp_config") or y.get("deepspeed"))
    ds = y.get("deepspeed")
    if isinstance(ds, str) and not os.path.isfile(os.path.join(ROOT, "axolotl", ds)):
        return {"refused": "deepspeed: names"}
    if shard:
        world = shard * (count(y.get("dp_replicate_size")) or 1) * tp * cp
        if world > 1:
            read["parallel.gpus"] = world
    entry = {"read": read}
    if not shard and (sharded or tp > 1 or cp > 1):
        entry = {"refused": COUNT}
    elif not shard:
        read["parallel.strategy"] = None
    if (count(y.get("expert_parallel_size")) or 1) > 1:
        # The test stands a dense model in for one the catalog lacks: a refusal naming the
        # expert parallelism it cannot divide is also right.
        entry["or_refused"] = "parallel.expert"
    return entry


# LitGPT: config_hub/{finetune,pretrain}/**.yaml (litgpt finetune_lora / finetune / pretrain).
def litgpt(rel, y):
    read = {}
    if str(y.get("quantize") or "").startswith("bnb.nf4"):
        read["train.method"] = "qlora"
    elif "lora_r" in y:
        read["train.method"] = "lora"
    elif "/finetune/" in rel:
        read["train.method"] = "full"
    devices = y.get("devices", 1)
    if devices == "auto":
        return {"refused": "devices: \"auto\""}
    micro = count(dotted(y, "train.micro_batch_size"))
    if micro:
        read["train.micro_batch"] = micro
        glob = count(dotted(y, "train.global_batch_size"))
        if glob and count(devices) and glob % (micro * devices) == 0:
            read["train.grad_accum"] = glob // (micro * devices)
    if count(dotted(y, "train.max_seq_length")):
        read["train.seq_len"] = dotted(y, "train.max_seq_length")
    precision = str(y.get("precision") or "")
    if precision.startswith("bf16"):
        read["precision.compute"] = "bf16"
    if count(devices) and devices > 1:
        read["parallel.gpus"] = devices
        read["parallel.strategy"] = "fsdp"
    elif count(devices):
        read["parallel.strategy"] = None
    return {"read": read}


# DeepSpeed JSON (the files the YAMLs above name): the GPU count is train_batch_size /
# (micro batch x accumulation) when all three are numbers, else the launcher's.
def deepspeed(rel, y):
    stage = dotted(y, "zero_optimization.stage")
    strategy = {0: "ddp", 1: "zero1", 2: "zero2", 3: "zero3"}.get(stage, "ddp")
    total, micro, accum = (count(y.get(k)) for k in ("train_batch_size", "train_micro_batch_size_per_gpu",
                                                     "gradient_accumulation_steps"))
    if total and micro and accum and total % (micro * accum) == 0:
        return {"read": {"parallel.strategy": strategy, "parallel.gpus": total // (micro * accum)}}
    return {"refused": COUNT}


# Accelerate YAML (accelerate launch --config_file): num_processes is the GPUs of every machine.
def accelerate(rel, y):
    kind = y.get("distributed_type", "NO")
    read = {}
    if kind == "FSDP":
        read["parallel.strategy"] = "fsdp"
    elif kind == "MULTI_GPU":
        read["parallel.strategy"] = "ddp"
    elif kind == "DEEPSPEED" and dotted(y, "deepspeed_config.zero_stage") in (1, 2, 3):
        read["parallel.strategy"] = "zero%d" % dotted(y, "deepspeed_config.zero_stage")
    processes = count(y.get("num_processes"))
    if processes and (processes > 1 or kind != "NO"):
        read["parallel.gpus"] = processes
    elif kind != "NO":
        return {"refused": COUNT}
    if y.get("mixed_precision") in ("bf16", "fp16"):
        read["precision.compute"] = y["mixed_precision"]
    return {"read": read}


# ms-swift: examples/**.sh, launch scripts as its users share runs. The shell's own rules (shlex):
# backslash continuations, quotes (a prompt may span lines), `NAME=value` before a command or on
# a line of its own; what the shell would compute ($(...)) is not known.
SWIFT_TRAINS = {"swift sft", "swift pt", "swift rlhf", "megatron sft", "megatron pt", "megatron rlhf"}


def strip_comment(line, quote):
    """The line without its comment (bash: an unquoted # at the start of a word), and the quote
    still open at its end."""
    out = []
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        out.append(c)
    return "".join(out), quote


def swift_commands(text):
    import shlex
    lines, current, quote = [], "", None
    for physical in text.split("\n"):
        piece, quote = strip_comment(physical, quote)
        if not quote and piece.endswith("\\"):
            current += piece[:-1] + " "
            continue
        current += piece
        try:
            words = shlex.split(current)
        except ValueError:  # an open quote: the command goes on
            current += "\n"
            continue
        if words:
            lines.append(words)
        current = ""
    variables, exported, commands = {}, {}, []

    def expand(value):
        """$name and ${name} from the script's assignments; None when the shell would compute it."""
        if "$(" in value:
            return None
        missing = []
        def one(match):
            name = match.group(1) or match.group(2)
            if name not in variables:
                missing.append(name)
                return ""
            return variables[name]
        out = re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", one, value)
        return None if missing else out

    for words in lines:
        env = {}
        while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
            name, _, value = words[0].partition("=")
            env[name] = expand(value) or "$(...)"
            words = words[1:]
        if words and words[0] == "export":
            # bash: an exported variable is in the environment of every later command; a plain
            # assignment line is the shell's own variable, for $name only.
            for w in words[1:]:
                name, _, value = w.partition("=")
                variables[name] = exported[name] = expand(value) or "$(...)"
            continue
        if not words:
            variables.update(env)
            continue
        if words[0] in ("swift", "megatron") and len(words) > 1:
            commands.append((words[0] + " " + words[1], dict(exported, **env),
                             [expand(w) if expand(w) is not None else "$(...)" for w in words[2:]]))
    return commands


def swift_args(words):
    args, key = {}, None
    for w in words:
        if w.startswith("--"):
            key, _, inline = w[2:].partition("=")
            args[key] = inline if inline else True
            if inline:
                key = None
        elif key is not None:
            args[key] = w if args[key] is True else args[key]
    return args


def swift_rlhf(args, dynamic, rlhf, read):
    """`swift rlhf` (ms-swift docs, Command-line-parameters.md "RLHF Arguments" and GRPO.md):
    rlhf_type dpo (default), orpo/simpo/cpo (no reference), kto, rm (a reward model), ppo and
    grpo (generation after a prompt of max_length, up to max_completion_length, default 512);
    gkd is not modelled. Returns the refusal, or fills `read`."""
    objectives = {"dpo": "dpo", "orpo": "preference", "simpo": "preference", "cpo": "preference", "kto": "kto",
                  "rm": "reward", "ppo": "ppo", "grpo": "grpo"}
    if rlhf not in objectives:
        return "rlhf_type"
    ref = args.get("ref_model")
    if isinstance(ref, str) and ref != args.get("model"):
        return "ref_model"
    read["train.objective"] = objectives[rlhf]
    if rlhf not in ("grpo", "ppo"):
        return None
    if rlhf == "grpo":
        for key in ("reward_model", "teacher_model"):
            if key in args:
                return key
    completion = args.get("max_completion_length", "512")
    prompt = args.get("max_length", "512")
    if "max_completion_length" not in dynamic and "max_length" not in dynamic and \
            str(completion).isdigit() and str(prompt).isdigit():
        read["train.seq_len"] = int(prompt) + int(completion)
    if rlhf == "ppo":
        if args.get("tuner_type", args.get("train_type", "lora")) != "full":
            return "PPO under LoRA is not modelled"
        if str(completion).isdigit():
            read["train.ppo.response_length"] = int(completion)
        return None
    if str(completion).isdigit():
        read["train.grpo.completion_length"] = int(completion)
    generations = args.get("num_generations", "8")
    if "num_generations" not in dynamic and str(generations).isdigit():
        read["train.grpo.num_generations"] = int(generations)
    use_vllm = str(args.get("use_vllm", "false")).lower() == "true"
    mode = args.get("vllm_mode")
    if use_vllm and mode not in ("colocate", "server"):
        return "vllm_mode"
    read["train.grpo.rollout"] = ("vllm_" + mode) if use_vllm else "hf_generate"
    if use_vllm and mode == "colocate" and "vllm_gpu_memory_utilization" not in dynamic:
        read["train.grpo.vllm_gpu_memory_utilization"] = float(args.get("vllm_gpu_memory_utilization", "0.9"))
    return None


def swift(rel, text):
    commands = swift_commands(text)
    if not commands:
        return {"refused": "runs no training command Headroom reads"}
    training = [c for c in commands if c[0] in SWIFT_TRAINS]
    if len(training) > 1:
        return {"refused": "holds more than one training command"}
    command, env, words = training[0] if training else commands[0]
    if command.startswith("megatron"):
        return {"refused": "ms-swift Megatron-Core command"}
    if command not in ("swift sft", "swift pt", "swift rlhf"):
        return {"refused": "ms-swift command that does not train (" + command + ")"}
    if words and not words[0].startswith("--") and re.search(r"\.(ya?ml|json)$", words[0]):
        return {"refused": "takes its arguments from"}
    args = swift_args(words)
    dynamic = {k for k, v in args.items() if "$" in str(v)}  # what the shell would compute
    tuner = args.get("tuner_type", args.get("train_type", "lora"))
    if tuner not in ("lora", "full"):
        return {"refused": "only lora and full are modelled"}
    if args.get("quant_method", "bnb") != "bnb" and "quant_bits" in args:
        return {"refused": "quantization is not modelled"}
    read = {"train.method": "full" if tuner == "full" else "qlora" if str(args.get("quant_bits")) == "4" else "lora"}
    batch = args.get("per_device_train_batch_size", "1")
    if "per_device_train_batch_size" not in dynamic and str(batch).isdigit():
        read["train.micro_batch"] = int(batch)
    rlhf = args.get("rlhf_type", "dpo") if command == "swift rlhf" else None
    generates = rlhf in ("grpo", "ppo")
    for key, dotted_key in (("gradient_accumulation_steps", "train.grad_accum"), ("max_length", "train.seq_len")):
        if key == "max_length" and generates:
            continue  # the prompt's length in GRPO and PPO (below)
        if key in args and key not in dynamic and str(args[key]).isdigit():
            read[dotted_key] = int(args[key])
    if rlhf is not None:
        refused = swift_rlhf(args, dynamic, rlhf, read)
        if refused:
            return {"refused": refused}
    dtype = args.get("torch_dtype")
    if dtype in ("bfloat16", "float16"):
        read["precision.compute"] = "bf16" if dtype == "bfloat16" else "fp16"
    nproc = env.get("NPROC_PER_NODE")
    visible = env.get("CUDA_VISIBLE_DEVICES", "")
    if nproc and nproc.isdigit():
        nodes = env.get("NNODES", "1")
        read["parallel.gpus"] = int(nproc) * (int(nodes) if nodes.isdigit() else 1)
    elif "," in visible and not nproc:
        return {"refused": "several GPUs without NPROC_PER_NODE"}
    elif isinstance(args.get("deepspeed"), str):
        return {"refused": COUNT}
    return {"read": read}


# torchtitan TOML job configs (torchtitan/models/*/train_configs of the releases that shipped
# them), read with tomllib as torchtitan reads them; defaults from its job_config.py.
def torchtitan(rel, y):
    model = y.get("model", {})
    if model.get("name") in ("flux", "vlm"):
        return {"refused": "not a language model"}
    training = y.get("training", {})
    parallel = y.get("parallelism", {})
    ac = y.get("activation_checkpoint", {})
    if ac.get("mode") == "selective" and str(ac.get("selective_ac_option", "op")).isdigit():
        return {"refused": "selective_ac_option"}  # every N-th layer: not modelled
    read = {"train.method": "full", "train.micro_batch": count(training.get("local_batch_size")) or 8,
            "train.seq_len": count(training.get("seq_len")) or 2048,
            "precision.compute": "fp32" if training.get("mixed_precision_param") == "float32" else "bf16"}
    degrees = {k: parallel.get(k, 1) for k in ("data_parallel_replicate_degree", "data_parallel_shard_degree",
                                               "tensor_parallel_degree", "pipeline_parallel_degree",
                                               "context_parallel_degree")}
    if degrees["data_parallel_shard_degree"] == -1:  # the ranks the launcher leaves: not stated
        return {"refused": COUNT}
    world = 1
    for v in degrees.values():
        world *= v
    if world > 1:
        read["parallel.gpus"] = world
    return {"read": read}


def entries():
    by_hand = json.load(open(os.path.join(ROOT, "expected.json"), encoding="utf-8"))["files"]
    out = {}
    folders = {"torchtune/recipes/configs/": torchtune, "llamafactory/examples/": llamafactory,
               "axolotl/examples/": axolotl, "litgpt/config_hub/": litgpt,
               "axolotl/deepspeed_configs/": deepspeed, "llamafactory/examples/deepspeed/": deepspeed,
               "ms-swift/examples/": swift, "torchtitan/": torchtitan, "trl/examples/accelerate_configs/": accelerate,
               "accelerate/examples/": accelerate}
    for folder, reader in folders.items():
        base = os.path.join(ROOT, folder)
        for dirpath, _, names in os.walk(base):
            for name in sorted(names):
                pattern = (r"\.json$" if reader is deepspeed else r"\.sh$" if reader is swift
                           else r"\.toml$" if reader is torchtitan else r"\.ya?ml$")
                if reader is accelerate and name.endswith(".json"):
                    pattern, reader_here = r"\.json$", deepspeed
                else:
                    reader_here = reader
                if not re.search(pattern, name):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
                if rel in by_hand:
                    continue  # read by hand, and asserted in more detail
                if reader is swift:
                    with open(path, encoding="utf-8") as f:
                        entry = swift(rel, f.read())
                elif reader is torchtitan:
                    import tomllib
                    with open(path, "rb") as f:
                        entry = torchtitan(rel, tomllib.load(f))
                else:
                    text, tree = load(path)
                    entry = reader(text, tree) if reader is torchtune else reader_here(rel, tree)
                if entry is not None:
                    out[rel] = entry
    return dict(sorted(out.items()))


def main():
    doc = {"comment": "Written by tests/trainconfig_corpus.py, an independent reader (PyYAML) of every example "
                      "config kept here that expected.json does not list by hand: read -> the values the file "
                      "states (null: absent), or refused -> a fragment of the message; or_refused: a refusal "
                      "naming that field is also right. Regenerate with --write; ctest runs --check.",
           "files": entries()}
    text = json.dumps(doc, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
    if "--write" in sys.argv:
        with open(OUT, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"{OUT}: {len(doc['files'])} files")
        return 0
    with open(OUT, encoding="utf-8") as f:
        if f.read() != text:
            print(f"{OUT} is not what the independent reader says: run tests/trainconfig_corpus.py --write "
                  "and review the difference", file=sys.stderr)
            return 1
    print(f"{len(doc['files'])} files: corpus.json is current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
