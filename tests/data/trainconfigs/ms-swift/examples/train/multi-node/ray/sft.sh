swift sft examples/train/multi-node/ray/sft.yaml
