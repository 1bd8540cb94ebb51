#pragma once
/// RabbitMQ as a kind of broker, with a results backend (a Redis) for the rest: its URL forms
/// (amqp://, amqps:// over TLS, pyamqp:// as amqp), its app.yaml names (Merlin's rabbitmq and
/// amqps are TLS on port 5671), its template, and opening an AmqpBackend.
#include "merlin/core/broker/broker_provider.h"

namespace merlin {

inline constexpr BrokerKind kRabbitmqKind{"rabbitmq"};

/// Everything but `open`: pure data, what parsing a URL or app.yaml needs.
BrokerProvider amqp_provider_description();

/// The provider with `open`: an AmqpBackend over the Backend of the location's results backend
/// (opened through the same table), its reservations kept there. In a build without RabbitMQ
/// (MERLIN_WITH_RABBITMQ=OFF), `open` says so.
const BrokerProvider& amqp_provider();

}  // namespace merlin
