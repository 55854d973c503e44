package natscluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/go-elicit/elicit/runtime/cluster"
)

// Resumed streams (cluster.Resumer): a client's GET with Last-Event-ID
// that reaches a replica other than the one whose call the stream is
// relays the stream from its owner.
//
//	resume     request/reply on PREFIX.resume.REPLICA (headers: session,
//	           last event id, the asking replica's inbox): the owner replies
//	           "ok" and then sends the stream to the inbox, one request per
//	           event or keep-alive comment (an empty one first: the stream
//	           is found), each acknowledged "ok" by the asking replica, or
//	           "gone" once its GET's client went away; a last message with
//	           the header Elicit-End says how the stream ended ("end",
//	           "not-found", "dropped", "failed").

// Header and values of the resume protocol.
const (
	headerEvent    = "Elicit-Event"
	headerInbox    = "Elicit-Inbox"
	headerEnd      = "Elicit-End"
	endOK          = "end"
	endNotFound    = "not-found"
	endDropped     = "dropped"
	endFailed      = "failed"
	replyReaderOut = "gone"
)

var _ cluster.Resumer = (*Cluster)(nil)

// subscribeResume subscribes to the resumptions of this replica's streams
// (called from New, with the other subscriptions).
func (c *Cluster) subscribeResume() error {
	subj := c.opts.Prefix + ".resume." + c.opts.Replica
	sub, err := c.nc.Subscribe(subj, c.onResume)
	if err != nil {
		return fmt.Errorf("natscluster: subscribing to %s: %w", subj, err)
	}
	c.subs = append(c.subs, sub)
	return nil
}

// Resume implements cluster.Resumer.
func (c *Cluster) Resume(ctx context.Context, replica, sessionID, lastEventID string, send func(event []byte) error) error {
	if !validToken(replica) {
		return fmt.Errorf("%w: invalid replica id %q", cluster.ErrStreamNotFound, replica)
	}
	if err := c.up(ctx); err != nil {
		return err
	}
	inbox := c.nc.NewInbox()
	sub, err := c.nc.SubscribeSync(inbox)
	if err != nil {
		return c.fault("subscribing to a resumed stream", err)
	}
	defer c.leaveStream(sub)
	msg := nats.NewMsg(c.opts.Prefix + ".resume." + replica)
	msg.Header.Set(headerSession, sessionID)
	msg.Header.Set(headerEvent, lastEventID)
	msg.Header.Set(headerInbox, inbox)
	askCtx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	rep, err := c.nc.RequestMsgWithContext(askCtx, msg)
	cancel()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return c.replicaFault("resuming a stream of", replica, err)
	case string(rep.Data) != replyOK:
		return fmt.Errorf("%w: replica %q replied %q", cluster.ErrStreamNotFound, replica, rep.Data)
	}
	for {
		m, err := sub.NextMsgWithContext(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return c.fault("reading a resumed stream of "+replica, err)
		}
		if end := m.Header.Get(headerEnd); end != "" {
			switch end {
			case endOK:
				return nil
			case endNotFound:
				return cluster.ErrStreamNotFound
			case endDropped:
				return cluster.ErrEventsDropped
			}
			return fmt.Errorf("natscluster: the stream on %q failed: %s", replica, m.Data)
		}
		var ev []byte
		if len(m.Data) > 0 {
			ev = m.Data
		}
		if err := send(ev); err != nil {
			_ = m.Respond([]byte(replyReaderOut))
			return err
		}
		_ = m.Respond([]byte(replyOK))
	}
}

// leaveStream ends a resumed stream's subscription once its reader is
// gone. An event or keep-alive the owner sent before the unsubscription
// reached the server is already on its way here: dropped, its owner would
// wait RequestTimeout for an acknowledgement (and the call, for its
// resumption window, that long again). Drain lets the subscription take
// those in: each is answered "gone", so the owner learns at once. A message
// the owner sends after the unsubscription finds no responder.
func (c *Cluster) leaveStream(sub *nats.Subscription) {
	if err := sub.Drain(); err != nil {
		_ = sub.Unsubscribe()
		return
	}
	for {
		m, err := sub.NextMsg(c.opts.RequestTimeout)
		if err != nil {
			return // drained (the subscription is closed), or the connection is gone
		}
		if m.Reply != "" && m.Header.Get(headerEnd) == "" {
			_ = m.Respond([]byte(replyReaderOut))
		}
	}
}

// onResume receives the resumption of a stream of this replica: it
// accepts it at once and relays the stream from its own goroutine.
func (c *Cluster) onResume(m *nats.Msg) {
	b := c.peer.Load()
	inbox := m.Header.Get(headerInbox)
	if b == nil || inbox == "" {
		_ = m.Respond([]byte(replyNotPending))
		return
	}
	_ = m.Respond([]byte(replyOK))
	go c.relay(b.p, m.Header.Get(headerSession), m.Header.Get(headerEvent), inbox)
}

// relay sends the stream to inbox until it ends, the asking replica stops
// acknowledging, or (an unacknowledged event) RequestTimeout passes.
func (c *Cluster) relay(peer cluster.Peer, sessionID, lastEventID, inbox string) {
	send := func(ev []byte) error {
		ctx, cancel := context.WithTimeout(context.Background(), c.opts.RequestTimeout)
		defer cancel()
		rep, err := c.nc.RequestWithContext(ctx, inbox, ev)
		switch {
		case err != nil:
			return err
		case string(rep.Data) != replyOK:
			return errors.New("natscluster: the resuming reader is gone")
		}
		return nil
	}
	err := peer.ResumeStream(context.Background(), sessionID, lastEventID, send)
	end := nats.NewMsg(inbox)
	switch {
	case err == nil:
		end.Header.Set(headerEnd, endOK)
	case errors.Is(err, cluster.ErrStreamNotFound):
		end.Header.Set(headerEnd, endNotFound)
	case errors.Is(err, cluster.ErrEventsDropped):
		end.Header.Set(headerEnd, endDropped)
	default:
		end.Header.Set(headerEnd, endFailed)
		end.Data = []byte(err.Error())
	}
	_ = c.nc.PublishMsg(end) // lost: the asking replica's watchdog ends its GET
}
