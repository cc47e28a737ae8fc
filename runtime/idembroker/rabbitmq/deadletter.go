package rabbitmq

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	amqp "github.com/rabbitmq/amqp091-go"
)

// The headers Run adds to a dead letter.
const (
	// ReasonHeader says why the delivery can never be processed: the
	// consumer's refusal of its message-id, which names the problem
	// (empty, too long, not UTF-8, a control character) and never holds
	// the id. It is valid UTF-8 without control characters and at most
	// MaxReasonLength bytes long, whatever the refusal held.
	ReasonHeader = "x-idemgen-reason"
	// SourceQueueHeader is the queue the delivery came from: Config.Queue.
	SourceQueueHeader = "x-idemgen-source-queue"
	// MaxReasonLength bounds ReasonHeader's value, in bytes; a longer
	// reason is cut at a character's boundary and ends with "…".
	MaxReasonLength = 512
)

// DeadLetter names where Run publishes a delivery that can never be
// processed (Config.DeadLetter).
type DeadLetter struct {
	// Exchange is the exchange the delivery is published to, which must
	// route it to a queue; "" is the default exchange, which routes it to
	// the queue RoutingKey names.
	Exchange string
	// RoutingKey is the dead letter's routing key; "" means
	// Config.Queue's name (then Exchange cannot be "": that would route
	// the delivery back to the queue it came from).
	RoutingKey string
}

// deadLetterer publishes the deliveries that can never be processed to
// cfg.DeadLetter, in confirm mode, on a connection of its own: under a
// memory or disk alarm the broker stops reading a connection that
// publishes, and the consuming connection must go on acknowledging. The
// connection is dialed when first needed and again after it was lost;
// its channel is opened again after the broker closed it (the exchange
// does not exist) or a publish was left unconfirmed.
type deadLetterer struct {
	cfg  *Config
	conn *amqp.Connection
	// blocks follows whether the broker blocks conn (blocking.go).
	blocks *blocking

	ch      *amqp.Channel
	closes  chan *amqp.Error // ch's close notice
	returns chan amqp.Return // ch's publishes the broker could not route
}

// errBlocked is publish's error while the broker blocks the dead-letter
// connection: the dead letter was not published, or may be once the
// alarm clears.
var errBlocked = errors.New("the broker blocks publishing (a resource alarm)")

// publish publishes d with reason and returns once the broker confirmed it
// routed and took it; an error says it may not have (the publish failed,
// was returned unroutable, negatively confirmed, or its channel closed;
// or its header frame would exceed the connection's frame_max). It waits
// for the confirm as Run waits for a delivery in flight, until it comes
// or the channel or connection is closed, or until the broker blocks the
// connection (errBlocked; at once, without publishing, when it blocks it
// already): then the publish is left unconfirmed, perhaps published once
// the alarm clears, and its channel to the broker.
func (p *deadLetterer) publish(d *amqp.Delivery, reason string) error {
	// Before connect: the broker does not read a blocked connection, so
	// opening a channel on it would wait as the confirm did.
	if err := p.blocked(); err != nil {
		return err
	}
	if err := p.connect(); err != nil {
		return err
	}
	blocked, _ := p.blocks.now()
	dl := p.cfg.DeadLetter
	pub := p.cfg.deadLetterOf(d, reason)
	// A larger header frame would make the broker close the connection,
	// and the delivery would come back to do it again.
	if size, limit := headerFrameSize(pub), p.conn.Config.FrameSize; limit > 0 && size > limit {
		return fmt.Errorf("its properties and headers take a frame of %d bytes, over the connection's frame_max of %d",
			size, limit)
	}
	dc, err := p.ch.PublishWithDeferredConfirm(dl.Exchange, p.cfg.deadLetterKey(), true, false, pub)
	if err != nil {
		return err
	}
	select {
	case <-dc.Done():
	case <-blocked:
		p.ch = nil
		_, why := p.blocks.now()
		return fmt.Errorf("%w: %s; the dead letter may be published when it clears", errBlocked, why)
	}
	// The broker sends a return before the confirm of the same publish,
	// and the client hands it over before it resolves the confirm.
	select {
	case r, ok := <-p.returns:
		if ok {
			return fmt.Errorf("the broker could not route it: %d %s", r.ReplyCode, r.ReplyText)
		}
	default:
	}
	if dc.Acked() {
		return nil
	}
	select {
	case e := <-p.closes:
		return closed("the channel was closed", e)
	default:
		return errors.New("the broker nacked it")
	}
}

// blocked returns errBlocked, with the broker's reason, while the broker
// blocks p's open connection.
func (p *deadLetterer) blocked() error {
	if p.conn == nil || p.conn.IsClosed() {
		return nil
	}
	if _, why := p.blocks.now(); why != "" {
		return fmt.Errorf("%w: %s", errBlocked, why)
	}
	return nil
}

// connect dials p's connection unless it has one open, and opens its
// channel unless that is open.
func (p *deadLetterer) connect() error {
	if p.conn == nil || p.conn.IsClosed() {
		p.close()
		conn, err := p.cfg.Dial()
		if err != nil {
			return fmt.Errorf("dialing: %w", err)
		}
		p.conn, p.blocks = conn, watchBlocking(conn)
	}
	if p.ch == nil || p.ch.IsClosed() {
		if err := p.open(); err != nil {
			return fmt.Errorf("opening a channel: %w", err)
		}
	}
	return nil
}

// open opens p's channel and puts it in confirm mode.
func (p *deadLetterer) open() error {
	ch, err := p.conn.Channel()
	if err != nil {
		return err
	}
	if err := ch.Confirm(false); err != nil {
		_ = ch.Close()
		return err
	}
	p.ch = ch
	p.closes = ch.NotifyClose(make(chan *amqp.Error, 1))
	// One publish at a time, so one return at most is pending.
	p.returns = ch.NotifyReturn(make(chan amqp.Return, 1))
	return nil
}

// close closes p's connection, if any, waiting closeWait at most for the
// broker's reply: a blocked connection is not read.
func (p *deadLetterer) close() {
	if p.conn == nil {
		return
	}
	_ = p.conn.CloseDeadline(time.Now().Add(closeWait))
	p.conn, p.ch = nil, nil
}

// closeWait bounds the wait for the broker's reply when the dead-letter
// connection is closed.
const closeWait = time.Second

// cameBack says whether d is a dead letter Run published from queue: it
// holds ReasonHeader, and queue in SourceQueueHeader.
func cameBack(d *amqp.Delivery, queue string) bool {
	_, reason := d.Headers[ReasonHeader]
	return reason && d.Headers[SourceQueueHeader] == queue
}

// deadLetterKey is the dead letters' routing key.
func (cfg *Config) deadLetterKey() string {
	if cfg.DeadLetter.RoutingKey == "" {
		return cfg.Queue
	}
	return cfg.DeadLetter.RoutingKey
}

// deadLetterOf is d as a dead letter: its body and properties, and its
// headers with ReasonHeader and SourceQueueHeader added (replacing any d
// had). Two properties are not kept: the expiration, so that the dead
// letter does not expire in its queue (RabbitMQ's own dead-lettering
// drops it too), and the user-id, which the broker checks against the
// publishing connection's user.
func (cfg *Config) deadLetterOf(d *amqp.Delivery, reason string) amqp.Publishing {
	headers := make(amqp.Table, len(d.Headers)+2)
	maps.Copy(headers, d.Headers)
	headers[ReasonHeader] = headerText(reason)
	headers[SourceQueueHeader] = cfg.Queue
	return amqp.Publishing{
		Headers:         headers,
		ContentType:     d.ContentType,
		ContentEncoding: d.ContentEncoding,
		DeliveryMode:    d.DeliveryMode,
		Priority:        d.Priority,
		CorrelationId:   d.CorrelationId,
		ReplyTo:         d.ReplyTo,
		MessageId:       d.MessageId,
		Timestamp:       d.Timestamp,
		Type:            d.Type,
		AppId:           d.AppId,
		Body:            d.Body,
	}
}

// headerText returns s as a header's text: invalid UTF-8 and control
// characters replaced by U+FFFD, cut to MaxReasonLength bytes.
func headerText(s string) string {
	const more = "…"
	// Each byte of s gives at least one: a longer s is cut below anyway,
	// and the rune its cut may split lies past the cut.
	s = s[:min(len(s), MaxReasonLength+1)]
	t := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return utf8.RuneError
		}
		return r
	}, s)
	if len(t) <= MaxReasonLength {
		return t
	}
	n := MaxReasonLength - len(more)
	for !utf8.RuneStart(t[n]) {
		n--
	}
	return t[:n] + more
}
