#!/usr/bin/env bash
# What fpgacnn-serve costs against the same detector in-process (issue 14's target: at most 10 % of the
# throughput and 2 ms of p50), measured with fpgacnn-bench on YOLO-LITE VOC int16 on the CPU: per round,
# in-process `fpgacnn-bench --pixels | --encoded`, then one server (--allow-client-shm) loaded by
# `fpgacnn-bench --server` with 1 and 16 clients, over TCP and through shared memory. The server CPU per
# request is read from its /metrics. Loopback only; every load is bounded by its request count.
#
# Usage: scripts/serve-overhead.sh [--build-dir DIR] [--shared-dir DIR] [--images DIR] [--rounds N]
#                                  [--forms "pixels encoded"] [--pin]
#   --pin: server and in-process run on core 1, the client on core 0 (taskset), so the client's work is
#   not charged to the server. Without it all share every core.
# Output: one block per round and form, as docs/tools/fpgacnn-bench.md quotes them.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/release
shared=../shared
images=/usr/share/darknet/data
rounds=3
forms="pixels encoded"
pin=0
while (($#)); do
    case "$1" in
        --build-dir) build=$2; shift 2 ;;
        --shared-dir) shared=$2; shift 2 ;;
        --images) images=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --forms) forms=$2; shift 2 ;;
        --pin) pin=1; shift ;;
        *) echo "serve-overhead: unknown argument $1 (see the usage at the top of $0)" >&2; exit 2 ;;
    esac
done
bench=$build/apps/bench/fpgacnn-bench
serve=$build/apps/serve/fpgacnn-serve
model=$shared/models/yolo-lite-voc
for tool in "$bench" "$serve" "$build/apps/quantize/fpgacnn-quantize"; do
    [[ -x $tool ]] || { echo "serve-overhead: $tool not built (build with -DFPGACNN_WITH_SERVE=ON)" >&2; exit 1; }
done
[[ -d $model ]] || { echo "serve-overhead: $model not found (--shared-dir)" >&2; exit 1; }

work=$(mktemp -d)
server_pid=
cleanup() {
    [[ -n $server_pid ]] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# The sample images that are pictures darknet ships (not its label glyphs), and the int16 model.
mkdir -p "$work/images" "$work/repository/yolo-lite"
for name in dog eagle giraffe horses kite person scream; do
    [[ -f $images/$name.jpg ]] && cp "$images/$name.jpg" "$work/images/"
done
cfg=$(realpath "$model"/*.cfg)
weights=$(realpath "$model"/*.weights)
names=$(realpath "$model"/*.names)
"$build/apps/quantize/fpgacnn-quantize" --cfg "$cfg" --weights "$weights" --out "$work/repository/yolo-lite/model.fq16" \
    -q > "$work/quantize.log" 2>&1 || { cat "$work/quantize.log" >&2; exit 1; }
cat > "$work/repository/yolo-lite/model.json" <<EOF
{"cfg": "$cfg", "weights": "$weights", "names": "$names", "quantized": "model.fq16", "device": "cpu",
 "precision": "int16", "instances": 1}
EOF

server_cpus=() client_cpus=()
if ((pin)); then server_cpus=(taskset -c 1); client_cpus=(taskset -c 0); fi
# The sum of a metric's samples (every label set) on the server's /metrics.
metric_sum() { curl -s "http://$http/metrics" | awk -v m="$1" '{split($1, name, "{")} name[1] == m {s += $2} END {print s + 0}'; }

for round in $(seq "$rounds"); do
    for form in $forms; do
        in_process_flag=--encoded client_flag=
        [[ $form == pixels ]] && in_process_flag=--pixels client_flag=--pixels
        echo "== round $round, $form ($( ((pin)) && echo "pinned: server core 1, client core 0" || echo "shared cores"))"
        "${server_cpus[@]}" "$bench" --cfg "$cfg" --weights "$weights" --quantized "$work/repository/yolo-lite/model.fq16" \
            --device cpu --precision int16 $in_process_flag --images "$work/images" --frames 600 -q |
            grep -E '^(single|pipelined)'
        "${server_cpus[@]}" "$serve" --model-repository "$work/repository" --grpc-port 0 --http-port 0 \
            --allow-client-shm > "$work/server.log" 2>&1 &
        server_pid=$!
        for _ in $(seq 300); do grep -q 'listening: http' "$work/server.log" && break; sleep 0.2; done
        grpc=$(grep -o 'grpc 127.0.0.1:[0-9]*' "$work/server.log" | cut -d' ' -f2)
        http=$(grep -o 'http 127.0.0.1:[0-9]*' "$work/server.log" | cut -d' ' -f2)
        [[ -n $grpc && -n $http ]] || { echo "serve-overhead: the server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
        for clients in 1 16; do
            requests=$((clients == 1 ? 400 : 1200))
            for via in tcp shm; do
                shm_flag=
                [[ $via == shm ]] && shm_flag=--shared-memory
                load=("$bench" --server "$grpc" --model yolo-lite --clients "$clients" $client_flag $shm_flag --images "$work/images" -q)
                "${client_cpus[@]}" "${load[@]}" --requests 50 > /dev/null  # warm-up
                cpu0=$(metric_sum process_cpu_seconds_total) done0=$(metric_sum fpgacnn_requests_total)
                result=$("${client_cpus[@]}" "${load[@]}" --requests "$requests" | grep -E '^answered' | tr -s ' ')
                cpu1=$(metric_sum process_cpu_seconds_total) done1=$(metric_sum fpgacnn_requests_total)
                awk -v v="$via" -v c="$clients" -v r="$result" -v a="$cpu0" -v b="$cpu1" -v n0="$done0" -v n1="$done1" \
                    'BEGIN {printf "  %s, %2d clients: %s  server cpu %.2f ms/request\n", v, c, r, (b - a) * 1000 / ((n1 - n0) > 0 ? n1 - n0 : 1)}'
            done
        done
        kill -TERM "$server_pid"
        wait "$server_pid" || { echo "serve-overhead: the server did not exit 0 on SIGTERM" >&2; exit 1; }
        server_pid=
    done
done
