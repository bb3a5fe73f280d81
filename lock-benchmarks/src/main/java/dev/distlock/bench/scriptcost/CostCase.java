package dev.distlock.bench.scriptcost;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.function.LongPredicate;

/**
 * One measured case: {@code calls} calls of one script (or one variant of it) on keys of their own, each after its
 * {@code setup} calls, which are not measured.
 *
 * @param name the row's name
 * @param measures what the row shows (the part of a script that differs from the row it is compared with)
 * @param setup calls run before the window, per index, in order
 * @param call the measured call for an index
 * @param expected what each measured call must answer, so that a row never measures an error path by mistake
 * @param reference the name of the row this one is compared with, or null: they run next to each other in each round
 */
public record CostCase(String name, String measures, List<IntFunction<CompletableFuture<Long>>> setup,
        IntFunction<CompletableFuture<Long>> call, LongPredicate expected, String reference) {

    public CostCase(String name, String measures, List<IntFunction<CompletableFuture<Long>>> setup,
            IntFunction<CompletableFuture<Long>> call, LongPredicate expected) {
        this(name, measures, setup, call, expected, null);
    }

    /** This case, compared with the row named {@code referenceName}. */
    public CostCase comparedWith(String referenceName) {
        return new CostCase(this.name, this.measures, this.setup, this.call, this.expected, referenceName);
    }

    /** The name of the group this case runs in: its reference's, or its own. */
    public String group() {
        return (this.reference != null) ? this.reference : this.name;
    }
}
