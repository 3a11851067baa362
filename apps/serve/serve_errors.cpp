// The one mapping of ErrorKind to the protocol's HTTP statuses and gRPC codes (inference_core.hpp).
#include "inference_core.hpp"

namespace fpgacnn::serve {

int http_status(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::InvalidArgument:
        case ErrorKind::AlreadyExists:  // the shared-memory extension's status for a name in use
            return 400;
        case ErrorKind::Forbidden:
            return 403;
        case ErrorKind::NotFound:
            return 404;
        case ErrorKind::Unauthenticated:
            return 401;
        case ErrorKind::PayloadTooLarge:
            return 413;
        case ErrorKind::ResourceExhausted:  // a full admission queue or no instance: retry later
        case ErrorKind::Unavailable:
            return 503;
        case ErrorKind::DeadlineExceeded:
            return 504;
        case ErrorKind::Internal:
            return 500;
    }
    return 500;
}

// grpc::StatusCode's numbers (grpc/impl/codegen/status_code_enum.h), fixed by the gRPC protocol.
int grpc_code(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::InvalidArgument:
            return 3;  // INVALID_ARGUMENT
        case ErrorKind::NotFound:
            return 5;  // NOT_FOUND
        case ErrorKind::Unauthenticated:
            return 16;  // UNAUTHENTICATED
        case ErrorKind::Forbidden:
            return 7;  // PERMISSION_DENIED
        case ErrorKind::AlreadyExists:
            return 6;  // ALREADY_EXISTS
        case ErrorKind::PayloadTooLarge:
            return 3;  // INVALID_ARGUMENT (gRPC has no "too large")
        case ErrorKind::ResourceExhausted:
            return 8;  // RESOURCE_EXHAUSTED
        case ErrorKind::Unavailable:
            return 14;  // UNAVAILABLE
        case ErrorKind::DeadlineExceeded:
            return 4;  // DEADLINE_EXCEEDED
        case ErrorKind::Internal:
            return 13;  // INTERNAL
    }
    return 13;
}

}  // namespace fpgacnn::serve
