OPENAI_API_KEY="xxx" \
swift sample examples/sampler/distill/distill.yaml
