#pragma once
/// The app.yaml that `merlin config create` writes: Merlin's file in its Redis form, ready for
/// a Redis on this machine, or in its RabbitMQ form, with the keys a user changes explained.
#include <string>

namespace merlin::cli {

/// The text of that file: broker `name: redis` on 127.0.0.1:6379, database 0, no user, and
/// the password line commented out (a Redis without a password works as it is). Pure.
std::string redis_app_yaml();

/// `--broker rabbitmq`: broker `name: rabbitmq` (AMQP over TLS, the certificate checked) on
/// 127.0.0.1:5671 with a password file, and a Redis results backend on 127.0.0.1:6379. Pure.
std::string rabbitmq_app_yaml();

}  // namespace merlin::cli
