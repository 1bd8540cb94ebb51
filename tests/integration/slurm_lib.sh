# Sourced by integration tests that need Slurm (after lib.sh). start_slurm brings up a private
# single-host cluster for this test alone: its own munged (socket and key in $WORK), its own
# slurm.conf (SLURM_CONF, exported, so sbatch/srun/squeue use it), slurmctld and $SLURM_NODES
# slurmd's ("fake" nodes n1..nN on this host, $SLURM_CPUS CPUs each) on free ports; it waits
# until every node is idle, and stop_slurm (run at exit) shuts them down. Without the daemons,
# or without root (slurmd runs jobs as their user), the test skips with exit 77.
start_slurm() {
  local nodes=${SLURM_NODES:-2} cpus=${SLURM_CPUS:-4} p
  for p in munged slurmctld slurmd sbatch srun squeue scontrol sinfo; do
    command -v "$p" >/dev/null || { echo "SKIP: $p not found (apt-get install slurm-wlm munge)"; exit 77; }
  done
  [ "$(id -u)" = 0 ] || { echo "SKIP: a private Slurm needs root (slurmd runs jobs as their user)"; exit 77; }
  SLURM_DIR=$WORK/slurm
  mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/log"
  # munge: a private key and socket.
  dd if=/dev/urandom of="$SLURM_DIR/munge.key" bs=1024 count=1 status=none
  chmod 400 "$SLURM_DIR/munge.key"
  munged --force --socket="$SLURM_DIR/munge.sock" --key-file="$SLURM_DIR/munge.key" \
    --pid-file="$SLURM_DIR/munged.pid" --log-file="$SLURM_DIR/log/munged.log" \
    --seed-file="$SLURM_DIR/munge.seed" </dev/null >/dev/null 2>&1 ||
    { echo "FAIL munged did not start:"; tail -5 "$SLURM_DIR/log/munged.log"; exit 1; }
  CLEANUP+=("stop_slurm")
  # Ports: a random block whose every port nobody listens on; slurmctld may still lose a race
  # for one to another test, so a refused bind is retried on a new block.
  local try ctld_port node_port
  for try in $(seq 8); do
    ctld_port=$((20000 + RANDOM % 20000))
    node_port=$((ctld_port + 1))
    slurm_ports_free "$ctld_port" $((nodes + 2)) || continue
    write_slurm_conf "$ctld_port" "$node_port" "$nodes" "$cpus"
    : >"$SLURM_DIR/log/slurmctld.log"
    slurmctld -c -f "$SLURM_CONF" </dev/null >/dev/null 2>&1 ||
      { echo "FAIL slurmctld did not start:"; tail -5 "$SLURM_DIR/log/slurmctld.log"; exit 1; }
    wait_until 30 slurmctld_up_or_gone && scontrol ping 2>/dev/null | grep -q "is UP" && break
    if grep -q "Address already in use" "$SLURM_DIR/log/slurmctld.log"; then
      echo "note: slurmctld port $ctld_port taken, trying another"
      continue
    fi
    echo "FAIL slurmctld not up:"; tail -5 "$SLURM_DIR/log/slurmctld.log"; exit 1
  done
  scontrol ping 2>/dev/null | grep -q "is UP" ||
    { echo "FAIL slurmctld not up after $try port blocks:"; tail -5 "$SLURM_DIR/log/slurmctld.log"; exit 1; }
  local n
  for n in $(seq "$nodes"); do
    mkdir -p "$SLURM_DIR/spool-n$n" "$SLURM_DIR/tmp-n$n"
    slurmd -f "$SLURM_CONF" -N "n$n" </dev/null >/dev/null 2>&1 ||
      { echo "FAIL slurmd n$n did not start:"; tail -5 "$SLURM_DIR/log/slurmd-n$n.log"; exit 1; }
  done
  if ! wait_until 60 slurm_nodes_idle; then
    echo "FAIL Slurm nodes not idle: $(sinfo -h -N -o '%N %T' | tr '\n' ' ')"
    tail -5 "$SLURM_DIR/log/slurmctld.log"
    exit 1
  fi
}
# write_slurm_conf CTLD_PORT NODE_PORT NODES CPUS: $SLURM_DIR/slurm.conf, exported as SLURM_CONF.
write_slurm_conf() {
  cat >"$SLURM_DIR/slurm.conf" <<C
ClusterName=merlintest
SlurmctldHost=localhost
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SLURM_DIR/munge.sock
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$1
SlurmdPort=$2
StateSaveLocation=$SLURM_DIR/state
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log
SlurmdLogFile=$SLURM_DIR/log/slurmd-%n.log
SlurmdPidFile=$SLURM_DIR/slurmd-%n.pid
SlurmdSpoolDir=$SLURM_DIR/spool-%n
# Each node's own (PMIx makes its step dirs there: in a shared /tmp, two nodes of one host, or
# a job id of an earlier private cluster, collide).
TmpFS=$SLURM_DIR/tmp-%n
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=300
KillWait=2
# Generous: the daemons and the test share a loaded 2-core machine.
MessageTimeout=60
InactiveLimit=0
MailProg=/bin/true
SchedulerParameters=batch_sched_delay=0
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=n[1-$3] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$(($2 + 1))-$(($2 + $3))] CPUs=$4 RealMemory=2048 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
C
  export SLURM_CONF=$SLURM_DIR/slurm.conf
}
# slurm_ports_free FIRST COUNT: nobody listens on FIRST..FIRST+COUNT-1 on loopback.
slurm_ports_free() {
  local p
  for p in $(seq "$1" $(($1 + $2 - 1))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && return 1
  done
  return 0
}
# slurmctld answers, or its process is gone (a refused bind ends it at once).
slurmctld_up_or_gone() {
  scontrol ping 2>/dev/null | grep -q "is UP" && return 0
  [ -s "$SLURM_DIR/slurmctld.pid" ] && kill -0 "$(cat "$SLURM_DIR/slurmctld.pid")" 2>/dev/null && return 1
  grep -q "fatal" "$SLURM_DIR/log/slurmctld.log"
}
slurm_nodes_idle() {
  local st
  st=$(sinfo -h -N -o '%T' 2>/dev/null) || return 1
  [ -n "$st" ] && ! grep -qv '^idle$' <<<"$st"
}
stop_slurm() {
  [ -n "${SLURM_CONF:-}" ] || return 0
  scancel --quiet -u root 2>/dev/null || true
  scontrol shutdown >/dev/null 2>&1 || true
  local f
  for f in "$SLURM_DIR"/slurmctld.pid "$SLURM_DIR"/slurmd-*.pid; do
    [ -e "$f" ] || continue
    local pid
    pid=$(cat "$f")
    wait_until 15 bash -c "! kill -0 $pid 2>/dev/null" || kill -9 "$pid" 2>/dev/null || true
  done
  # Whatever is left of this cluster (job steps of a test that failed half-way), then munged.
  pkill -9 -f "$SLURM_DIR" 2>/dev/null || true
}
