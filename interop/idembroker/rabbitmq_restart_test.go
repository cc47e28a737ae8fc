//go:build !long

package idembroker_test

// rabbitMQRestartSkipped says why the restart case does not restart
// RabbitMQ without the long tag: stop_app and start_app take about 10 s
// each time, and the case restarts twice.
const rabbitMQRestartSkipped = "restarting RabbitMQ twice takes about 20 s: run with -tags long"
