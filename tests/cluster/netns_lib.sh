# shellcheck shell=bash
# Sourced by the tests and benchmarks that need nodes really apart: cluster_up makes a small
# network of network namespaces on this machine (ip netns, veth pairs, a bridge), all named
# after this process so that runs side by side do not meet:
#   <p>-sw   the switch: a bridge, one port per node
#   <p>-b    the broker's node, 10.77.0.1
#   <p>-wK   worker node K (1..N), 10.77.0.(10+K)
# on NODE CMD...   runs CMD in a node (b, w1, w2...)
# cut_off NODE / heal NODE  takes the node's switch port down / up (a partition: its packets go
#                  nowhere, its connections hang until a timeout, as a pulled cable's do)
# cluster_down     deletes them all (run by cluster_up's cleanup; deleting a namespace removes
#                  its interfaces).
# The kernel here has no netem (`tc qdisc add ... netem`: "unknown qdisc kind"), so delay
# comes from tests/cluster/delay_proxy.cc in front of the broker instead.
# cluster_can: 0 when this machine lets us make namespaces, else 1 with the reason in
# CLUSTER_WHY (not root, no iproute2, no veth or bridge in the kernel).

CLUSTER_P=mc$$
CLUSTER_NODES=()
CLUSTER_BROKER=10.77.0.1

cluster_can() {
  CLUSTER_WHY=""
  command -v ip >/dev/null || { CLUSTER_WHY="ip not found (apt-get install iproute2)"; return 1; }
  [ "$(id -u)" = 0 ] || { CLUSTER_WHY="network namespaces need root"; return 1; }
  local probe=${CLUSTER_P}-probe out
  if ! out=$(ip netns add "$probe" 2>&1); then CLUSTER_WHY="ip netns add: $out"; return 1; fi
  if ! out=$(ip -n "$probe" link add br0 type bridge 2>&1); then
    ip netns del "$probe"
    CLUSTER_WHY="no bridge here: $out"
    return 1
  fi
  if ! out=$(ip -n "$probe" link add va type veth peer name vb 2>&1); then
    ip netns del "$probe"
    CLUSTER_WHY="no veth here: $out"
    return 1
  fi
  ip netns del "$probe"
}

# cluster_node NAME ADDR: a namespace with lo and eth0 (ADDR/24) plugged into the switch.
cluster_node() {
  local ns=$CLUSTER_P-$1 a=v${CLUSTER_P}$1a b=v${CLUSTER_P}$1b
  ip netns add "$ns"
  ip link add "$a" type veth peer name "$b"
  ip link set "$a" netns "$CLUSTER_P-sw"
  ip link set "$b" netns "$ns"
  ip -n "$CLUSTER_P-sw" link set "$a" master br0 up
  ip -n "$ns" link set "$b" name eth0
  ip -n "$ns" addr add "$2/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  CLUSTER_NODES+=("$1")
}

# cluster_up N: the switch, the broker's node and N worker nodes.
cluster_up() {
  ip netns add "$CLUSTER_P-sw"
  CLEANUP+=("cluster_down")
  ip -n "$CLUSTER_P-sw" link add br0 type bridge
  ip -n "$CLUSTER_P-sw" link set br0 up
  cluster_node b "$CLUSTER_BROKER"
  local k
  for k in $(seq "$1"); do cluster_node "w$k" "10.77.0.$((10 + k))"; done
}

cluster_down() {
  local n
  for n in "${CLUSTER_NODES[@]}"; do ip netns del "$CLUSTER_P-$n" 2>/dev/null || true; done
  ip netns del "$CLUSTER_P-sw" 2>/dev/null || true
  CLUSTER_NODES=()
}

on() { local n=$1; shift; ip netns exec "$CLUSTER_P-$n" "$@"; }
cut_off() { ip -n "$CLUSTER_P-sw" link set "v${CLUSTER_P}$1a" down; }
heal() { ip -n "$CLUSTER_P-sw" link set "v${CLUSTER_P}$1a" up; }
