package dev.distlock.sample.sale;

import org.springframework.stereotype.Service;

/** The same purchase without the lock, to show the race it prevents. Do not copy this one. */
@Service
public class UnlockedSaleService {

    private final StockStore store;

    public UnlockedSaleService(StockStore store) {
        this.store = store;
    }

    public boolean purchase(String sku, int quantity) {
        return this.store.take(sku, quantity);
    }
}
