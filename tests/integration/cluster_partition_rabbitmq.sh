#!/usr/bin/env bash
# cluster_partition.sh with RabbitMQ as the broker (Redis as the results backend), both on the
# broker's node: a node cut off past its lease is fenced and its tasks run elsewhere; the broker
# cut off from every node for 12 s.
PARTITION_BROKER=rabbitmq exec bash "$(dirname "$0")/cluster_partition.sh" "$@"
