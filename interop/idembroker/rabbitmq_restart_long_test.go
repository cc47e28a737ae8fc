//go:build long

package idembroker_test

// rabbitMQRestartSkipped is "": with the long tag the restart case
// restarts RabbitMQ.
const rabbitMQRestartSkipped = ""
