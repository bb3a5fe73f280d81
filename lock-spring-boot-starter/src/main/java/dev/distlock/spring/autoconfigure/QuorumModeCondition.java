package dev.distlock.spring.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code distlock.quorum.nodes} is set, in any form (a comma-separated value or a YAML list), even to
 * something invalid, which validation then reports.
 */
final class QuorumModeCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        boolean set = Binder.get(context.getEnvironment())
            .bind(QuorumProperties.PREFIX + ".nodes", Bindable.listOf(String.class))
            .isBound();
        return set ? ConditionOutcome.match(QuorumProperties.PREFIX + ".nodes is set")
                : ConditionOutcome.noMatch(QuorumProperties.PREFIX + ".nodes is not set");
    }
}
