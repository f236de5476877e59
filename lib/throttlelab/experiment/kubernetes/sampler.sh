#!/bin/sh
# throttlelab in-pod sampler: runs the workload given as arguments and prints, to
# stdout (the pod log), monitor-log blocks read from the container's own cgroup,
# in the format of throttlelab.ingest.monitor.monitor_format. POSIX sh; needs only the
# shell, `date` and `sleep` from the image (no kubectl exec, no metrics server).
#
# Pod log layout (parsed by throttlelab.experiment.kubernetes.pod_log):
#   ### throttlelab begin ###
#   <monitor-log header and blocks>
#   ### throttlelab workload output (last N lines) ###
#   <the workload's last N lines of stdout+stderr>
#   ### throttlelab result exit_code=<n> wall_seconds=<s.cc> started_at=<utc> ###
#
# Environment: THROTTLELAB_INTERVAL (seconds, default 1), THROTTLELAB_POD,
# THROTTLELAB_NAMESPACE (downward API), THROTTLELAB_OUTPUT_LINES (default 50),
# THROTTLELAB_WORKDIR (default /throttlelab/work), THROTTLELAB_CGROUP_ROOT
# (default /sys/fs/cgroup; tests point it at fixture folders), THROTTLELAB_LINGER_S
# (default 0: seconds to stay idle after the result line, so that cAdvisor and
# Prometheus see the container's final counters before it goes).

interval="${THROTTLELAB_INTERVAL:-1}"
pod="${THROTTLELAB_POD:-$(hostname 2>/dev/null || echo unknown)}"
namespace="${THROTTLELAB_NAMESPACE:-unknown}"
keep="${THROTTLELAB_OUTPUT_LINES:-50}"
workdir="${THROTTLELAB_WORKDIR:-/throttlelab/work}"
cg="${THROTTLELAB_CGROUP_ROOT:-/sys/fs/cgroup}"
mkdir -p "$workdir" 2>/dev/null || workdir="${TMPDIR:-/tmp}"
out="$workdir/workload.out"

if [ "$#" -eq 0 ]; then
    echo "throttlelab sampler: no workload command given" >&2
    exit 64
fi

uptime_cs() {  # /proc/uptime in centiseconds (monotonic enough for wall time)
    read -r up _rest < /proc/uptime
    # "1${frac} - 100" keeps a fraction such as "08" from being read as octal
    printf '%s' "$(( ${up%.*} * 100 + 1${up#*.} - 100 ))"
}

# Block times: the wall clock read once, then advanced by /proc/uptime, so they are
# sub-second and strictly increasing (a block never repeats the previous time, which
# the reader would skip as a duplicate) even where `date` has no %N (busybox).  With
# %N the anchor is exact; without it, it is the middle of the current second.
up0="$(uptime_cs)"
ns="$(date -u +%s%N 2>/dev/null)"
case "$ns" in
    *[!0-9]*|"") epoch0_cs=$(( $(date -u +%s) * 100 + 50 )) ;;
    *) epoch0_cs="${ns%???????}" ;;
esac
last_file="$workdir/.throttlelab-last-cs"
utc() {  # epoch seconds -> "YYYY-MM-DD HH:MM:SS" in shell arithmetic (civil-from-days), no fork
    d=$(( $1 / 86400 + 719468 )); r=$(( $1 % 86400 ))
    era=$(( d / 146097 )); doe=$(( d - era * 146097 ))
    yoe=$(( (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365 ))
    doy=$(( doe - (365 * yoe + yoe / 4 - yoe / 100) )); mp=$(( (5 * doy + 2) / 153 ))
    day=$(( doy - (153 * mp + 2) / 5 + 1 )); mon=$(( mp < 10 ? mp + 3 : mp - 9 ))
    year=$(( yoe + era * 400 + (mon <= 2) ))
    printf '%04d-%02d-%02d %02d:%02d:%02d' "$year" "$mon" "$day" $(( r / 3600 )) $(( r % 3600 / 60 )) $(( r % 60 ))
}
now() {
    cs=$(( epoch0_cs + $(uptime_cs) - up0 ))
    last=0
    [ -r "$last_file" ] && read -r last < "$last_file"
    [ "$cs" -le "${last:-0}" ] && cs=$(( last + 1 ))
    printf '%s\n' "$cs" > "$last_file"
    printf '%s.%02d0Z' "$(utc $(( cs / 100 )))" $(( cs % 100 ))
}

# Which cgroup layout does the container see?
if [ -f "$cg/cpu.stat" ] && [ -f "$cg/cpu.max" ]; then
    layout=v2
elif [ -f "$cg/cpu/cpu.cfs_quota_us" ]; then
    layout=v1; v1cpu="$cg/cpu"; v1acct="$cg/cpuacct"
elif [ -f "$cg/cpu,cpuacct/cpu.cfs_quota_us" ]; then
    layout=v1; v1cpu="$cg/cpu,cpuacct"; v1acct="$cg/cpu,cpuacct"
else
    layout=none
fi

emit_file() {  # print a file's lines with shell builtins only
    [ -r "$1" ] || return 0
    while IFS= read -r line || [ -n "$line" ]; do
        printf '%s\n' "$line"
    done < "$1"
}

block() {
    # Build the whole block first, then print it with one printf, so that blocks
    # from the background sampler do not interleave with the final block.
    b="--- $(now) ---
"
    case "$layout" in
        v2)
            b="$b[cgroup cpu.stat]
$(emit_file "$cg/cpu.stat")
[cgroup cpu.max]
$(emit_file "$cg/cpu.max")
"
            ;;
        v1)
            read -r quota < "$v1cpu/cpu.cfs_quota_us" || quota=-1
            read -r period < "$v1cpu/cpu.cfs_period_us" || period=100000
            usage=""
            [ -r "$v1acct/cpuacct.usage" ] && read -r usage < "$v1acct/cpuacct.usage"
            b="$b[cgroup cpu.stat]
$(emit_file "$v1cpu/cpu.stat")
[cgroup cpu.max]
$quota $period
"
            [ -n "$usage" ] && b="$b[cgroup cpuacct.usage]
$usage
"
            ;;
    esac
    printf '%s\n' "$b"
}

echo "### throttlelab begin ###"
echo "=== CPU Monitoring Started ==="
echo "Pod: $pod"
echo "Namespace: $namespace"
echo "Interval: ${interval}s"
echo "Log file: pod-log"
echo "==============================="

started_at="$(now)"
block
t0="$(uptime_cs)"
"$@" > "$out" 2>&1 &
wpid=$!
(
    while :; do
        sleep "$interval"
        block
    done
) &
spid=$!
trap 'kill -TERM "$wpid" 2>/dev/null' TERM INT
wait "$wpid"
code=$?
t1="$(uptime_cs)"
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
block

cs=$((t1 - t0))
secs="$((cs / 100)).$(printf '%02d' $((cs % 100)))"
echo "### throttlelab workload output (last $keep lines) ###"
if command -v tail >/dev/null 2>&1; then
    tail -n "$keep" "$out"
else
    emit_file "$out"
fi
echo "### throttlelab result exit_code=$code wall_seconds=$secs started_at=$started_at ###"
linger="${THROTTLELAB_LINGER_S:-0}"
[ "$linger" != 0 ] && sleep "$linger"
exit "$code"
