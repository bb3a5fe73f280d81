package dev.distlock.spring.web;

import java.time.Duration;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.distlock.LeaseLostException;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.RestartGraceException;
import dev.distlock.spring.LockKeyException;
import dev.distlock.spring.RestartGraceMonitor;

/**
 * Answers lock failures that reach a Spring MVC or WebFlux controller with a problem detail instead of a bare 500:
 * <ul>
 * <li>{@link LockTimeoutException} (the lock stayed held past the wait limit): 409 Conflict with {@code Retry-After};
 * <li>{@link LeaseLostException} (the lock was lost before the work ended): 409 Conflict;
 * <li>{@link RestartGraceException} (Redis is younger than the restart grace): 503 Service Unavailable, saying when
 * Redis restarted and when new locks resume, with {@code Retry-After} the time left;
 * <li>{@link LockUnavailableException} (Redis could not be reached): 503 Service Unavailable with {@code Retry-After};
 * <li>{@link LockKeyException} for a key the lock service refuses (a newline, braces, too long, blank; typically from
 * a request's input): 400 Bad Request naming the rule.
 * </ul>
 * The lock's key is never exposed. Ordered last, so an application's own {@code @ExceptionHandler} for these exceptions
 * (in its controller or in an advice) wins; define a bean of this type to replace it, or set
 * {@code distlock.web.problem-details=false} to turn it off.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockProblemDetailsHandler {

    private final String retryAfterSeconds;

    private final Duration restartGrace;

    /** @param retryAfter the {@code Retry-After} to send, rounded up to whole seconds (at least 1) */
    public LockProblemDetailsHandler(Duration retryAfter) {
        this(retryAfter, Duration.ZERO);
    }

    /**
     * @param retryAfter the {@code Retry-After} to send, rounded up to whole seconds (at least 1)
     * @param restartGrace the lock service's restart grace, to say how long ago Redis restarted (zero: unknown)
     */
    public LockProblemDetailsHandler(Duration retryAfter, Duration restartGrace) {
        this.retryAfterSeconds = Long.toString(RestartGraceMonitor.seconds(retryAfter));
        this.restartGrace = restartGrace;
    }

    @ExceptionHandler
    public ResponseEntity<ProblemDetail> lockHeld(LockTimeoutException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
                "The resource is being changed by another request; retry later.");
        problem.setTitle("Lock held");
        return ResponseEntity.status(HttpStatus.CONFLICT)
            .header(HttpHeaders.RETRY_AFTER, this.retryAfterSeconds)
            .body(problem);
    }

    @ExceptionHandler
    public ResponseEntity<ProblemDetail> leaseLost(LeaseLostException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
                "The lock protecting this request was lost before the request finished; a transaction it ran is "
                        + "rolled back if it had not committed yet.");
        problem.setTitle("Lock lease lost");
        return ResponseEntity.status(HttpStatus.CONFLICT).body(problem);
    }

    @ExceptionHandler
    public ResponseEntity<ProblemDetail> restartGrace(RestartGraceException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                RestartGraceMonitor.describe(this.restartGrace, ex.retryAfter()) + " Redis grants no new lock while it "
                        + "is younger than its restart grace; retry then.");
        problem.setTitle("Redis restart grace");
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
            .header(HttpHeaders.RETRY_AFTER, Long.toString(RestartGraceMonitor.seconds(ex.retryAfter())))
            .body(problem);
    }

    @ExceptionHandler
    public ResponseEntity<ProblemDetail> invalidKey(LockKeyException ex) {
        String rule = ex.rule();
        if (rule == null) {
            throw ex; // the key expression itself failed: a defect of the application, a 500
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
                "The request's lock key is not valid: " + rule + ".");
        problem.setTitle("Invalid lock key");
        return ResponseEntity.badRequest().body(problem);
    }

    @ExceptionHandler
    public ResponseEntity<ProblemDetail> lockUnavailable(LockUnavailableException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "The lock service cannot be reached; retry later.");
        problem.setTitle("Lock service unavailable");
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
            .header(HttpHeaders.RETRY_AFTER, this.retryAfterSeconds)
            .body(problem);
    }
}
