#!/usr/bin/env bash
# Issue 19 must-show 6: README's test command three times under two busy loops, then once idle.
set -u
cd /tmp/m6
export DATABASE_URL='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
export GOFLAGS=-count=1
yes > /dev/null & y1=$!
yes > /dev/null & y2=$!
for i in 1 2 3; do
  s=$(date +%s)
  if go test -race -timeout 30m ./... > /tmp/ms6-run$i.log 2>&1 && go -C interop test -race -timeout 30m ./... >> /tmp/ms6-run$i.log 2>&1; then r=pass; else r=FAIL; fi
  echo "busy run $i: $r in $(( $(date +%s) - s )) s (load $(cut -d' ' -f1-3 /proc/loadavg))" >> /tmp/ms6.txt
done
kill $y1 $y2
s=$(date +%s)
if go test -race -timeout 30m ./... > /tmp/ms6-idle.log 2>&1 && go -C interop test -race -timeout 30m ./... >> /tmp/ms6-idle.log 2>&1; then r=pass; else r=FAIL; fi
echo "idle warm run: $r in $(( $(date +%s) - s )) s (load $(cut -d' ' -f1-3 /proc/loadavg))" >> /tmp/ms6.txt
echo done >> /tmp/ms6.txt
