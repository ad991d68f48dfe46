#!/bin/bash
# A Megatron-LM launch script in the style of examples/llama (test data for trainplan import).
GPUS_PER_NODE=8
NNODES=${NNODES:-4}
TP=2
PP=2
export CUDA_DEVICE_MAX_CONNECTIONS=1

torchrun --nproc_per_node $GPUS_PER_NODE --nnodes $NNODES pretrain_gpt.py \
    --num-layers 32 \
    --hidden-size 4096 \
    --ffn-hidden-size 14336 \
    --num-attention-heads 32 \
    --group-query-attention \
    --num-query-groups 8 \
    --seq-length 8192 \
    --max-position-embeddings 8192 \
    --micro-batch-size 1 \
    --global-batch-size 128 \
    --tensor-model-parallel-size ${TP} \
    --pipeline-model-parallel-size ${PP} \
    --num-layers-per-virtual-pipeline-stage 4 \
    --sequence-parallel \
    --use-distributed-optimizer \
    --overlap-grad-reduce \
    --bf16 \
    --swiglu \
    --normalization RMSNorm \
    --position-embedding-type rope \
    --untie-embeddings-and-output-weights \
    --disable-bias-linear \
    --use-flash-attn \
    --recompute-granularity selective \
    --attention-dropout 0.0 \
    --hidden-dropout 0.0 \
    --lr 3.0e-4 \
    --min-lr 3.0e-5 \
    --weight-decay 0.1 \
    --clip-grad 1.0 \
    --data-path /data/llama3_text_document \
    --tokenizer-type HuggingFaceTokenizer \
    --use-fancy-kernels \
    --save-interval 1000
