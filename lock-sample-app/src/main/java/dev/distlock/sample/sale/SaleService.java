package dev.distlock.sample.sale;

import org.springframework.stereotype.Service;

import dev.distlock.spring.DistributedLock;

/** Purchases under a lock per SKU: one buyer at a time reads and writes a SKU's stock, on every instance. */
@Service
public class SaleService {

    private final StockStore store;

    public SaleService(StockStore store) {
        this.store = store;
    }

    @DistributedLock(key = "'stock:' + #sku", waitTime = "10s")
    public boolean purchase(String sku, int quantity) {
        return this.store.take(sku, quantity);
    }
}
