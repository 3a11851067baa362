#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz, clang++ with ASan + UBSan) into build/fuzz and runs each
# for a fixed time on its seed corpus; fails on any crash, leak, timeout, out-of-memory or sanitizer
# report. Usage: scripts/run-fuzzers.sh [seconds-per-harness (default 60)] [harness...]
# Findings are written to build/fuzz/findings/<harness>/; the corpus grown by a run is kept in
# build/fuzz/corpus/<harness>/ (reused by the next run; the committed seeds stay as they are).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
harnesses=("$@")
((${#harnesses[@]})) || harnesses=(cfg weights quantized image http_request device_spec rest_request)

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(cd .. && pwd)}"
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
start=$(date +%s)
cmake -S . -B build/fuzz "${generator[@]}" "${launcher[@]}" -DFPGACNN_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DFPGACNN_BUILD_TESTS=OFF \
  -DFPGACNN_BUILD_BENCHMARKS=OFF -DFPGACNN_WITH_XRT=OFF -DFPGACNN_BUILD_RTL=OFF >/dev/null
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build build/fuzz --parallel "$(nproc)" --target "${targets[@]}"
echo "run-fuzzers: build took $(($(date +%s) - start)) s"

# One harness: its status ("ok ..." or "FAILED") in build/fuzz/<h>.status for the report below.
fuzz_one() {
  local h="$1"
  local corpus="build/fuzz/corpus/$h" findings="build/fuzz/findings/$h" log="build/fuzz/$h.log"
  mkdir -p "$corpus" "$findings"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: libFuzzer's default, stated.
  if build/fuzz/tests/fuzz/"fuzz_$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "tests/fuzz/corpus/$h" >"$log" 2>&1; then
    local summary execs
    summary=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
    echo "ok: $execs executions; last status: $summary" >"build/fuzz/$h.status"
  else
    echo "FAILED" >"build/fuzz/$h.status"
  fi
}

# Each harness is one single-threaded process: as many run at once as there are cores, each still
# for the full time.
for h in "${harnesses[@]}"; do
  rm -f "build/fuzz/$h.status"
  while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done
  fuzz_one "$h" &
done
wait

failed=()
for h in "${harnesses[@]}"; do
  status=$(cat "build/fuzz/$h.status" 2>/dev/null || echo FAILED)
  if [[ "$status" == ok:* ]]; then
    echo "run-fuzzers: $h $status"
  else
    echo "run-fuzzers: $h FAILED (log: build/fuzz/$h.log, input: build/fuzz/findings/$h/)" >&2
    grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==' "build/fuzz/$h.log" | head -20 >&2 || true
    failed+=("$h")
  fi
done
echo "run-fuzzers: total $(($(date +%s) - start)) s for ${#harnesses[@]} harnesses at ${seconds} s each, $(nproc) at once"
if ((${#failed[@]})); then
  echo "run-fuzzers: failures in: ${failed[*]}" >&2
  exit 1
fi
