#!/usr/bin/env bash
# Dead workers with RabbitMQ as the broker (issue #14): every worker of a study SIGKILLed, a new
# one with a 300 s lease finishes it within --dead-after + 30 s (faults_lib.sh
# recovery_scenario): the dead workers' reservations (kept in the results Redis) are taken over
# once their heartbeat is stale, not at the end of their lease.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/rabbitmq_lib.sh"
source "$(dirname "$0")/faults_lib.sh"
start_redis
start_rabbitmq
export MERLIN_RESULTS_BACKEND_URL=$MERLIN_BROKER_URL
export MERLIN_BROKER_URL=amqp://guest:guest@127.0.0.1:$RABBIT_PORT/
held_tasks() { redis-cli -p $REDIS_PORT hlen "merlin:$key:held"; }
TAKEN_OVER='task taken over queue=.*its worker died'
recovery_scenario
finish
